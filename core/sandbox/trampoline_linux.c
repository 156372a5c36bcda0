//go:build linux && cgo

// The sandbox trampoline. ollm starts a sandboxed process by re-executing
// itself (/proc/self/exe) with _OLLM_SANDBOX set to the policy. This constructor runs before the Go runtime starts,
// so the re-exec costs a dynamic load and a few system calls, not ollm's
// package initialisation (~70 ms). It applies the policy to itself and
// executes the target: the ollm process that asked stays unrestricted.
//
// Spec lines (fields separated by a tab, lines by \n):
//   X <path>   the program to execute (absolute)
//   R <path>   a hierarchy the process may read and execute
//   W <path>   a hierarchy the process may read, execute and write
//   P <path>   an existing path made read-only (needs the mount namespace)
//   D <path>   a directory inside a P path made writable again (an
//              extension's data directory)
//   H <path>   an existing path hidden under an empty read-only mount
//   G <path>   an existing git directory or .git file bind-mounted onto
//              itself before the P mounts: a mount point can be neither
//              renamed nor replaced (EBUSY)
//   M          a user and mount namespace was created for us
//   L          a network namespace was created: bring loopback up
//   T          deny TCP connect and bind through Landlock
//
// Lines for a process another program starts (an editor's terminal, see
// External in launch_linux.go), which cannot create namespaces for us:
//   U          create the user and mount namespaces here (with L, the
//              network namespace too), mapping our own ids; implies M
//   A <n>      the target's argv starts at our argv[n] (ollm acp
//              terminal-exec -- prog args...)
//   C <dir>    change to dir before the target runs
//   E          the target's environment is only the variables that K
//              lines name
//   K <name>   a variable the target keeps
//
// Lines of issue 25 (lower case, so that other new kinds keep upper case):
//   k          keeper mode: the user and network namespaces were created by
//              clone; bring loopback up, write "ready\n" to stdout, wait
//              for EOF on stdin and exit. ollm keeps the namespaces open
//              (launch_linux.go) and every sandboxed process joins them.
//   j <path>   join the user namespace at path (an nsfs file, e.g.
//              /proc/<ollm>/fd/<n>) and create a mount namespace; implies M
//   n <path>   join the network namespace at path (no network: loopback
//              only, shared by the sandboxed processes of one ollm)
//   o          cover every unix socket listening in ollm's network
//              namespace (/proc/net/unix, read before joining n), except
//              those under an i path: its directory with an empty tmpfs
//              when it lies in /run, /tmp, /var/tmp or /dev/shm and no W
//              or i path lies in it, else the socket with an empty file
//   i <path>   a hierarchy whose unix sockets stay reachable (the workspace)
//   u <path>   a unix socket to cover whatever else the spec says (the
//              user's ssh-agent)
//   l data=<bytes>, l fsize=<bytes>
//              RLIMIT_DATA (memory) and RLIMIT_FSIZE (the largest file it
//              may write), set just before the exec (hooks.memoryMB,
//              hooks.fileSizeMB)
//   V <n>      (ollm_spawn) ollm vouches that no path the spec names
//              changed since a start that gave the same n: a kept view
//              with the same lines and n is used without its stats
//
// Always, whatever the spec: the target runs with no controlling terminal
// (in a session of its own when re-executed, in a process group of its own
// that gave the terminal up when ollm_spawn starts it), with a mount namespace (M, U or j) a
// devpts instance of its own on /dev/pts, a seccomp filter refuses ioctl
// TIOCSTI and TIOCLINUX on every descriptor (EPERM), and on Landlock ABI
// 6+ the target cannot signal a process outside its sandbox; without
// network (n, L or T) it cannot reach an abstract unix socket created
// outside it either.
//
// Any failure before the target runs exits 125 with a line on stderr that
// starts "ollm sandbox:"; nothing runs unsandboxed.

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <net/if.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <linux/close_range.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_RULE_PATH_BENEATH 1
#define LL_RULE_NET_PORT 2

#define FS_EXECUTE (1ULL << 0)
#define FS_WRITE_FILE (1ULL << 1)
#define FS_READ_FILE (1ULL << 2)
#define FS_READ_DIR (1ULL << 3)
#define FS_REMOVE_DIR (1ULL << 4)
#define FS_REMOVE_FILE (1ULL << 5)
#define FS_MAKE_CHAR (1ULL << 6)
#define FS_MAKE_DIR (1ULL << 7)
#define FS_MAKE_REG (1ULL << 8)
#define FS_MAKE_SOCK (1ULL << 9)
#define FS_MAKE_FIFO (1ULL << 10)
#define FS_MAKE_BLOCK (1ULL << 11)
#define FS_MAKE_SYM (1ULL << 12)
#define FS_REFER (1ULL << 13)
#define FS_TRUNCATE (1ULL << 14)
#define FS_IOCTL_DEV (1ULL << 15)
#define NET_BIND_TCP (1ULL << 0)
#define NET_CONNECT_TCP (1ULL << 1)
#define SCOPE_ABSTRACT_UNIX (1ULL << 0)
#define SCOPE_SIGNAL (1ULL << 1)

struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped; // ABI 6
};

struct __attribute__((packed)) ll_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
};

#define MAX_RULES 4096

struct spec {
	char *exe;
	char *read[MAX_RULES];
	int nread;
	char *write[MAX_RULES];
	int nwrite;
	char *protect[MAX_RULES];
	int nprotect;
	char *hide[MAX_RULES];
	int nhide;
	char *data[MAX_RULES];
	int ndata;
	char *pin[MAX_RULES];
	int npin;
	char *keep[MAX_RULES];
	int nkeep;
	char *dir;
	int mountns, loopback, tcp, unshare, argv0, envonly;
	// issue 25
	int keeper, sockets;
	char *joinuser, *joinnet;
	char *sockok[MAX_RULES];
	int nsockok;
	char *sockhide[MAX_RULES];
	int nsockhide;
	// ollm_spawn: ollm vouches that no path this spec names changed
	// since the last start that gave the same number (0: no word).
	unsigned long long vouched;
	// l lines: resource limits set just before the exec (0: none).
	unsigned long long maxdata, maxfsize;
	// ollm_spawn: the target's descriptors are 0..nfds-1 and no other
	// survives the exec (the trampoline leaves spawned 0: its caller
	// decides its descriptors).
	int spawned, nfds;
	// S line: refuse signals out with the seccomp filter, not Landlock's
	// signal scope (what kernels before Landlock ABI 6 get; tests force
	// it where the scope exists).
	int sigseccomp;
};

// say writes "ollm sandbox: " and the pieces (NULL ends them) as one line
// on stderr with one write(2): no stdio lock and no allocation, so that it
// is safe in a child sharing ollm's memory (ollm_spawn).
static void say(const char *a, const char *b, const char *c, const char *d, const char *e) {
	char buf[1024];
	size_t n = 0;
	const char *parts[] = {"ollm sandbox: ", a, b, c, d, e};
	for (size_t i = 0; i < sizeof parts / sizeof parts[0] && parts[i]; i++) {
		for (const char *p = parts[i]; *p && n < sizeof buf - 1; p++)
			buf[n++] = *p;
	}
	buf[n++] = '\n';
	ssize_t r = write(2, buf, n);
	(void)r;
}

// quiet: a maker child (ollm_spawn) shares ollm's descriptors, stderr
// included; it exits without a word and the spawned child, doing every
// step itself, says what failed.
static volatile int quiet;

// held are the descriptors a maker child has open in ollm's table (it
// shares it): die closes them before it exits, so a failure leaks none.
static int held[4] = {-1, -1, -1, -1};

static void hold(int fd) {
	for (int i = 0; quiet && fd >= 0 && i < 4; i++) {
		if (held[i] < 0) {
			held[i] = fd;
			return;
		}
	}
}

static void let_go(int fd) {
	for (int i = 0; i < 4; i++)
		if (held[i] == fd)
			held[i] = -1;
	close(fd);
}

static void die(const char *what, const char *arg) {
	if (quiet) { // a maker child: ollm's stderr is not the place
		for (int i = 0; i < 4; i++)
			if (held[i] >= 0)
				close(held[i]);
		_exit(125);
	}
	const char *why = strerror(errno);
	if (arg)
		say(what, " ", arg, ": ", why);
	else
		say(what, ": ", why, NULL, NULL);
	_exit(125);
}

// parse reads the spec; -1 when it names no program.
static int parse(char *text, struct spec *s) {
	memset(s, 0, sizeof *s);
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char kind = line[0];
		char *arg = line[1] == '\t' ? line + 2 : NULL;
		switch (kind) {
		case 'X': s->exe = arg; break;
		case 'R': if (arg && s->nread < MAX_RULES) s->read[s->nread++] = arg; break;
		case 'W': if (arg && s->nwrite < MAX_RULES) s->write[s->nwrite++] = arg; break;
		case 'P': if (arg && s->nprotect < MAX_RULES) s->protect[s->nprotect++] = arg; break;
		case 'D': if (arg && s->ndata < MAX_RULES) s->data[s->ndata++] = arg; break;
		case 'H': if (arg && s->nhide < MAX_RULES) s->hide[s->nhide++] = arg; break;
		case 'G': if (arg && s->npin < MAX_RULES) s->pin[s->npin++] = arg; break;
		case 'M': s->mountns = 1; break;
		case 'L': s->loopback = 1; break;
		case 'T': s->tcp = 1; break;
		case 'U': s->unshare = 1; s->mountns = 1; break;
		case 'A': s->argv0 = arg ? atoi(arg) : 0; break;
		case 'C': s->dir = arg; break;
		case 'E': s->envonly = 1; break;
		case 'K': if (arg && s->nkeep < MAX_RULES) s->keep[s->nkeep++] = arg; break;
		case 'k': s->keeper = 1; break;
		case 'j': s->joinuser = arg; s->mountns = 1; break;
		case 'n': s->joinnet = arg; break;
		case 'o': s->sockets = 1; break;
		case 'i': if (arg && s->nsockok < MAX_RULES) s->sockok[s->nsockok++] = arg; break;
		case 'u': if (arg && s->nsockhide < MAX_RULES) s->sockhide[s->nsockhide++] = arg; break;
		case 'S': s->sigseccomp = 1; break;
		case 'V': s->vouched = arg ? strtoull(arg, NULL, 10) : 0; break;
		case 'l':
			if (arg && strncmp(arg, "data=", 5) == 0) s->maxdata = strtoull(arg + 5, NULL, 10);
			if (arg && strncmp(arg, "fsize=", 6) == 0) s->maxfsize = strtoull(arg + 6, NULL, 10);
			break;
		}
	}
	if (!s->exe && !s->keeper) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

// protect bind-mounts path onto itself read-only, keeping the flags the
// kernel locks for a mount inherited into a user namespace.
static void protect(const char *path) {
	struct statvfs st;
	if (statvfs(path, &st) != 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return; // none there (.git/hooks where .git is a file)
		die("stat", path);
	}
	if (mount(path, path, NULL, MS_BIND | MS_REC, NULL) != 0)
		die("bind", path);
	unsigned long flags = MS_BIND | MS_REMOUNT | MS_RDONLY;
	if (st.f_flag & ST_NOSUID) flags |= MS_NOSUID;
	if (st.f_flag & ST_NODEV) flags |= MS_NODEV;
	if (st.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
	if (st.f_flag & ST_NOATIME) flags |= MS_NOATIME;
	if (st.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
	if (st.f_flag & ST_RELATIME) flags |= MS_RELATIME;
	if (mount(NULL, path, NULL, flags, NULL) != 0)
		die("make read-only", path);
}

// pin bind-mounts an existing path onto itself, as writable as it was:
// the mount point cannot be renamed, removed or replaced. A link is left
// alone (the mount would land where it leads).
static void pin(const char *path) {
	struct stat st;
	if (lstat(path, &st) != 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return;
		die("stat", path);
	}
	if (S_ISLNK(st.st_mode))
		return;
	if (mount(path, path, NULL, MS_BIND, NULL) != 0)
		die("pin", path);
}

// writable bind-mounts a directory inside a protected path onto itself
// writable again: an extension's data directory under .ollm/. It must be
// a directory, not a link, when the mount is made.
static void writable(const char *path) {
	struct stat lst;
	if (lstat(path, &lst) != 0)
		die("stat", path);
	if (!S_ISDIR(lst.st_mode)) {
		errno = ENOTDIR;
		die("data directory", path);
	}
	struct statvfs st;
	if (statvfs(path, &st) != 0)
		die("stat", path);
	if (mount(path, path, NULL, MS_BIND, NULL) != 0)
		die("bind", path);
	unsigned long flags = MS_BIND | MS_REMOUNT;
	if (st.f_flag & ST_NOSUID) flags |= MS_NOSUID;
	if (st.f_flag & ST_NODEV) flags |= MS_NODEV;
	if (st.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
	if (st.f_flag & ST_NOATIME) flags |= MS_NOATIME;
	if (st.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
	if (st.f_flag & ST_RELATIME) flags |= MS_RELATIME;
	if (mount(NULL, path, NULL, flags, NULL) != 0)
		die("make writable", path);
}

// hide covers path with something empty and read-only: a tmpfs for a
// directory, /dev/null for anything else.
static void hide(const char *path) {
	struct stat st;
	if (lstat(path, &st) != 0) {
		if (errno == ENOENT)
			return;
		die("stat", path);
	}
	if (S_ISDIR(st.st_mode)) {
		if (mount("tmpfs", path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=0500") != 0)
			die("hide", path);
		return;
	}
	if (S_ISLNK(st.st_mode))
		return; // a link resolves to a path the rules decide
	if (mount("/dev/null", path, NULL, MS_BIND, NULL) != 0)
		die("hide", path);
}

static void write_file(const char *path, const char *text) {
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		die("open", path);
	size_t n = strlen(text);
	if (write(fd, text, n) != (ssize_t)n)
		die("write", path);
	close(fd);
}

// enter_namespaces does for a process an editor started what Wrap asks
// clone to do: a user and mount namespace (and a network namespace)
// mapping our own ids. The process is still single-threaded here.
static void enter_namespaces(int net) {
	uid_t uid = getuid();
	gid_t gid = getgid();
	int flags = CLONE_NEWUSER | CLONE_NEWNS;
	if (net)
		flags |= CLONE_NEWNET;
	if (unshare(flags) != 0)
		die("create namespaces", NULL);
	char buf[64];
	write_file("/proc/self/setgroups", "deny");
	snprintf(buf, sizeof buf, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	write_file("/proc/self/uid_map", buf);
	snprintf(buf, sizeof buf, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	write_file("/proc/self/gid_map", buf);
}

// kept is the environment with only the variables the spec names, each
// once, with its last value.
static char **kept(struct spec *s) {
	int n = 0;
	for (char **e = environ; *e; e++)
		n++;
	char **out = calloc(n + 1, sizeof *out);
	if (!out)
		die("out of memory", NULL);
	int j = 0;
	for (char **e = environ; *e; e++) {
		const char *eq = strchr(*e, '=');
		if (!eq)
			continue;
		size_t len = (size_t)(eq - *e);
		int later = 0; // a launcher that appends without replacing: the last value counts
		for (char **f = e + 1; *f && !later; f++)
			later = strncmp(*f, *e, len + 1) == 0;
		if (later)
			continue;
		for (int i = 0; i < s->nkeep; i++) {
			if (strlen(s->keep[i]) == len && strncmp(*e, s->keep[i], len) == 0) {
				out[j++] = *e;
				break;
			}
		}
	}
	out[j] = NULL;
	return out;
}

static void loopback_up(void) {
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die("socket", NULL);
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) != 0)
		die("loopback flags", NULL);
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) != 0)
		die("loopback up", NULL);
	close(fd);
}

// keeper is the trampoline of the process whose user and network
// namespaces every sandboxed process of one ollm joins (k): clone created
// them, so it brings loopback up, says so and waits for ollm to have
// opened them. ollm's descriptors keep them alive after it exits.
static void keeper(void) {
	loopback_up();
	if (write(1, "ready\n", 6) != 6)
		die("keeper: write", NULL);
	char c;
	while (read(0, &c, 1) > 0)
		;
	_exit(0);
}

// open_ns opens a namespace file before any setns: the path names one of
// ollm's descriptors, which we may open as its child of the same user.
static int open_ns(const char *path) {
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("open namespace", path);
	hold(fd);
	return fd;
}

// join_namespaces enters ollm's shared user namespace (and, without
// network, its network namespace) and creates a mount namespace of our
// own. A process of the user owning the namespace has every capability in
// it, so no capability is needed in the namespace we start in.
static void join_namespaces(struct spec *s) {
	int user = open_ns(s->joinuser);
	int net = s->joinnet ? open_ns(s->joinnet) : -1;
	if (setns(user, CLONE_NEWUSER) != 0)
		die("join the user namespace", s->joinuser);
	if (net >= 0 && setns(net, CLONE_NEWNET) != 0)
		die("join the network namespace", s->joinnet);
	if (unshare(CLONE_NEWNS) != 0)
		die("create a mount namespace", NULL);
	let_go(user);
	if (net >= 0)
		let_go(net);
}

static int under(const char *path, const char *base) {
	size_t n = strlen(base);
	while (n > 1 && base[n - 1] == '/')
		n--;
	return strncmp(path, base, n) == 0 && (path[n] == '\0' || path[n] == '/' || (n == 1 && base[0] == '/'));
}

// read_all reads a /proc file whole; NULL (errno set) when it cannot be
// read. It never exits: ollm_spawn calls it in ollm's own process.
static char *read_all(const char *path) {
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (buf && len + 4096 >= cap) {
			char *more = realloc(buf, cap *= 2);
			if (!more)
				free(buf);
			buf = more;
		}
		if (!buf) {
			close(fd);
			errno = ENOMEM;
			return NULL;
		}
		ssize_t r = read(fd, buf + len, cap - len - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			free(buf);
			close(fd);
			errno = e;
			return NULL;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

// host_sockets returns /proc/net/unix of the network namespace ollm runs
// in: the unix sockets of every process outside a network-off sandbox.
// *failed is set (with errno) when the spec needs it and it cannot be read.
static char *host_sockets(struct spec *s, int *failed) {
	*failed = 0;
	if (!s->sockets)
		return NULL;
	char path[64];
	if (s->loopback && !s->unshare) // clone made us a network namespace already
		snprintf(path, sizeof path, "/proc/%d/net/unix", (int)getppid());
	else
		snprintf(path, sizeof path, "/proc/self/net/unix");
	char *text = read_all(path);
	*failed = text == NULL;
	return text;
}

// cover_socket puts /dev/null over path when it is a unix socket: a
// connect there is refused. A path that is not there (or hidden already)
// needs nothing.
static void cover_socket(const char *path) {
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISSOCK(st.st_mode))
		return;
	if (mount("/dev/null", path, NULL, MS_BIND, NULL) != 0)
		die("cover the unix socket", path);
}

// cover_dir puts an empty read-only tmpfs over a directory holding unix
// sockets: one mount for all of them, and the sockets made there later.
static void cover_dir(const char *dir) {
	struct stat st;
	if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return;
	if (mount("tmpfs", dir, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=0555") != 0)
		die("cover the unix sockets in", dir);
}

// coverable reports whether the directory holding a socket may be covered
// as a whole: it lies in a runtime or temporary area (/run, /tmp, ...,
// where daemons keep their sockets, not files a build reads), and neither
// it nor anything below it is a path the process writes or keeps (the
// workspace, $TMPDIR, a granted agent).
static int coverable(struct spec *s, const char *dir) {
	static const char *areas[] = {"/run/", "/var/run/", "/tmp/", "/var/tmp/", "/dev/shm/"};
	int in = 0;
	for (size_t i = 0; i < sizeof areas / sizeof areas[0] && !in; i++)
		in = strncmp(dir, areas[i], strlen(areas[i])) == 0;
	if (!in)
		return 0;
	for (int i = 0; i < s->nwrite; i++)
		if (under(s->write[i], dir))
			return 0;
	for (int i = 0; i < s->nsockok; i++)
		if (under(s->sockok[i], dir))
			return 0;
	return 1;
}

// cover_sockets covers the sockets listening (or bound, for datagrams)
// in ollm's network namespace, outside the i hierarchies, and the u ones:
// the directory holding them when it may be covered whole (one mount for
// a desktop's /run/user/<uid>), else each socket.
// Lines: "Num RefCount Protocol Flags Type St Inode Path".
static void cover_sockets(struct spec *s, char *table) {
	for (int i = 0; i < s->nsockhide; i++)
		cover_socket(s->sockhide[i]);
	if (!table)
		return;
	char *covered[64]; // directories covered whole: skip their sockets
	int ncovered = 0;
	char *line = strchr(table, '\n'); // the header
	while (line && *++line) {
		char *end = strchr(line, '\n');
		if (end)
			*end = '\0';
		unsigned long flags = 0, type = 0, inode = 0;
		int at = 0;
		if (sscanf(line, "%*s %*s %*s %lx %lx %*s %lu %n", &flags, &type, &inode, &at) >= 3 && at > 0 && line[at] == '/') {
			char *path = line + at;
			int skip = (flags & 0x10000) == 0 && type != 2; // not __SO_ACCEPTCON, not SOCK_DGRAM
			for (int i = 0; i < s->nsockok && !skip; i++)
				skip = under(path, s->sockok[i]);
			for (int i = 0; i < ncovered && !skip; i++)
				skip = under(path, covered[i]);
			struct stat st;
			if (!skip && stat(path, &st) == 0 && S_ISSOCK(st.st_mode)) {
				char *slash = strrchr(path, '/');
				*slash = '\0';
				int whole = coverable(s, path);
				if (whole) {
					cover_dir(path);
					if (ncovered < 64)
						covered[ncovered++] = path; // the table lives until the exec
				} else {
					*slash = '/';
					cover_socket(path);
				}
			}
		}
		line = end;
	}
}

// private_pts gives the process a devpts instance of its own: the ptys it
// opens work (/dev/ptmx finds the instance at /dev/pts), the user's
// terminals (/dev/pts/N of the host) cannot be opened by path. A terminal
// the caller passed as a descriptor stays usable.
static void private_pts(void) {
	struct stat st;
	if (stat("/dev/pts", &st) != 0 || !S_ISDIR(st.st_mode))
		return;
	if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620") != 0)
		die("mount a devpts of its own on", "/dev/pts");
}

// no_terminal leaves the target no controlling terminal. A session
// leader has none (Wrap asks clone for a session of its own when ollm
// re-executes itself). Otherwise it gives the terminal up (TIOCNOTTY
// clears the controlling terminal of a process that does not lead its
// session; only a session leader can take one again, and none can take a
// terminal another session holds), in a process group of its own when
// own_group is set (ollm_spawn: a caller kills the whole group), else
// staying in its group (an editor's terminal starts us as a group
// leader, which cannot start a session, and keeps its Ctrl-C).
// ollm_spawn does not start a session: the scheduler makes each session
// a group of its own (autogroup), and a new one waited for a CPU for
// milliseconds on a busy machine (a hook run 0.45-0.53 ms over an
// unsandboxed one without, 3.6-3.9 ms with, at load 7).
static void no_terminal(int own_group) {
	if (getsid(0) == getpid())
		return;
	if (own_group && setpgid(0, 0) != 0)
		die("start a process group", NULL);
	int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENXIO)
			return; // none to give up
		die("open the controlling terminal to leave it", NULL);
	}
	if (ioctl(fd, TIOCNOTTY) != 0)
		die("leave the controlling terminal", NULL);
	close(fd);
	fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0 || errno != ENXIO) {
		errno = EBUSY;
		die("leave the controlling terminal", NULL);
	}
}

#if defined(__x86_64__)
#define ARCH_NATIVE AUDIT_ARCH_X86_64
#define IOCTL_NATIVE 16
#define IOCTL_X32 (0x40000000 + 514)
#define ARCH_COMPAT AUDIT_ARCH_I386
#define IOCTL_COMPAT 54
#define NR_MASK 0xbfffffffU /* x32 system calls: the x86_64 numbers with bit 30 */
#define NR_X32_SIGQUEUE 524
#define NR_X32_TGSIGQUEUE 536
#define C_KILL 37
#define C_TKILL 238
#define C_TGKILL 270
#define C_SIGQUEUE 178
#define C_TGSIGQUEUE 335
#elif defined(__aarch64__)
#define ARCH_NATIVE AUDIT_ARCH_AARCH64
#define IOCTL_NATIVE 29
#define IOCTL_X32 29
#define ARCH_COMPAT AUDIT_ARCH_ARM
#define IOCTL_COMPAT 54
#define NR_MASK 0xffffffffU
#define NR_X32_SIGQUEUE SYS_rt_sigqueueinfo
#define NR_X32_TGSIGQUEUE SYS_rt_tgsigqueueinfo
#define C_KILL 37
#define C_TKILL 238
#define C_TGKILL 268
#define C_SIGQUEUE 178
#define C_TGSIGQUEUE 363
#else
#error "the sandbox's seccomp filter knows x86_64 and arm64"
#endif

// seccomp_tty refuses ioctl TIOCSTI (push input into a terminal) and
// TIOCLINUX (a console's selection and paste) on every descriptor, for
// the native and the 32-bit system call tables alike. The command is
// compared on its low 32 bits, as the kernel reads it.
static void seccomp_tty(void) {
	struct sock_filter f[] = {
		/* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		/* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH_NATIVE, 0, 3),
		/* 2 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		/* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IOCTL_NATIVE, 4, 0),
		/* 4 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IOCTL_X32, 3, 6),
		/* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH_COMPAT, 0, 5),
		/* 6 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		/* 7 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IOCTL_COMPAT, 0, 3),
		/* 8 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])),
		/* 9 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TIOCSTI, 2, 0),
		/* 10 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TIOCLINUX, 1, 0),
		/* 11 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		/* 12 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
	};
	struct sock_fprog prog = {(unsigned short)(sizeof f / sizeof f[0]), f};
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0)
		die("seccomp", NULL);
}

#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

// seccomp_signals keeps signals from leaving the sandbox where Landlock
// has no signal scope (before ABI 6): kill to ollm (the target's parent),
// to -1 (every process of the user) or to another process group is
// refused; to the target's own group (0, -group) and to a process by its
// pid (its children: seccomp cannot tell whose a pid is) it is not. The
// calls that name a process by pid (tkill, tgkill, rt_(tg)sigqueueinfo,
// pidfd_open) are refused for ollm's pid; pidfd_send_signal answers
// ENOSYS, so programs fall back to kill (Go's os does). A 32-bit program
// sends no signal at all. Every comparison is on a pid's 32 bits, as the
// kernel reads a pid_t.
static void seccomp_signals(uint32_t ollm, uint32_t group) {
	uint32_t own = (uint32_t)(-(int32_t)group);
	struct sock_filter f[] = {
		/* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		/* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH_NATIVE, 0, 21),
		/* 2 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		/* 3 */ BPF_STMT(BPF_ALU | BPF_AND | BPF_K, NR_MASK),
		/* 4 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_kill, 9, 0),
		/* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_tkill, 14, 0),
		/* 6 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_tgkill, 13, 0),
		/* 7 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_rt_sigqueueinfo, 12, 0),
		/* 8 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_rt_tgsigqueueinfo, 11, 0),
		/* 9 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_pidfd_open, 10, 0),
		/* 10 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR_X32_SIGQUEUE, 9, 0),
		/* 11 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR_X32_TGSIGQUEUE, 8, 0),
		/* 12 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_pidfd_send_signal, 20, 0),
		/* 13 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		// kill(pid, sig)
		/* 14 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		/* 15 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ollm, 18, 0),
		/* 16 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 2, 0),
		/* 17 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, own, 1, 0),
		/* 18 */ BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x80000000U, 15, 0),
		/* 19 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		// a call naming a process by its first argument
		/* 20 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		/* 21 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ollm, 12, 0),
		/* 22 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		// the 32-bit table
		/* 23 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH_COMPAT, 0, 8),
		/* 24 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		/* 25 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, C_KILL, 8, 0),
		/* 26 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, C_TKILL, 7, 0),
		/* 27 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, C_TGKILL, 6, 0),
		/* 28 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, C_SIGQUEUE, 5, 0),
		/* 29 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, C_TGSIGQUEUE, 4, 0),
		/* 30 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_pidfd_open, 3, 0),
		/* 31 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_pidfd_send_signal, 1, 0),
		/* 32 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		/* 33 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
		/* 34 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
	};
	struct sock_fprog prog = {(unsigned short)(sizeof f / sizeof f[0]), f};
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0)
		die("seccomp", NULL);
}

// signals_by_seccomp: Landlock cannot scope signals (before ABI 6), or
// the spec asks for the seccomp filter instead (S).
static int signals_by_seccomp(struct spec *s) {
	if (s->sigseccomp)
		return 1;
	return syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION) < 6;
}

// drop_caps leaves the target no capability, even as root in its user
// namespace: the ambient, inheritable, permitted and effective sets are
// cleared, and with securebits NOROOT (locked) and no_new_privs (set
// before the exec, for Landlock) root gains nothing at an exec, nor does
// a setuid or file-capability program. The bounding set is left as it
// is: emptying it took a prctl per capability (41, the most costly step
// of a start) and guards only what those three already refuse
// (TestSpawnNoCapabilities).
static void drop_caps(void) {
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	// SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP(_LOCKED);
	// refused without CAP_SETPCAP (no user namespace, not root), where
	// there is no root to gain anything at an exec anyway.
	prctl(PR_SET_SECUREBITS, 0x0f, 0, 0, 0);
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];
	memset(d, 0, sizeof d);
	if (syscall(SYS_capset, &h, d) != 0)
		die("drop the capabilities", NULL);
}

static uint64_t fs_rights(int abi) {
	uint64_t r = (FS_MAKE_SYM << 1) - 1; // ABI 1: bits 0-12
	if (abi >= 2) r |= FS_REFER;
	if (abi >= 3) r |= FS_TRUNCATE;
	if (abi >= 5) r |= FS_IOCTL_DEV;
	return r;
}

static void add_rule(int ruleset, const char *path, uint64_t access, uint64_t handled) {
	int fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR || errno == EACCES || errno == ELOOP)
			return; // nothing there to allow
		die("open", path);
	}
	hold(fd);
	struct stat st;
	if (fstat(fd, &st) != 0)
		die("stat", path);
	uint64_t file_rights = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV;
	struct ll_path_beneath_attr attr;
	attr.allowed_access = access & handled;
	if (!S_ISDIR(st.st_mode))
		attr.allowed_access &= file_rights;
	attr.parent_fd = fd;
	if (attr.allowed_access && syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &attr, 0) != 0)
		die("landlock rule", path);
	let_go(fd);
}

// ruleset builds the Landlock ruleset of the spec: its read and write
// hierarchies, TCP rules and scopes. Rules attach to the inodes the paths
// lead to here, so a process joining this mount namespace later may use it.
static int ruleset(struct spec *s) {
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
	if (abi < 1)
		die("landlock is not available", NULL);
	struct ll_ruleset_attr ra;
	memset(&ra, 0, sizeof ra);
	ra.handled_access_fs = fs_rights((int)abi);
	size_t size = sizeof(uint64_t);
	if (s->tcp && abi >= 4) {
		ra.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP;
		size = 2 * sizeof(uint64_t);
	}
	if (abi >= 6) {
		// No signal to a process outside the sandbox (ollm, the user's
		// shell); without network no abstract unix socket made outside it.
		ra.scoped = s->sigseccomp ? 0 : SCOPE_SIGNAL;
		if (s->joinnet || s->loopback || s->tcp)
			ra.scoped |= SCOPE_ABSTRACT_UNIX;
		size = sizeof ra;
	}
	int rs = (int)syscall(SYS_landlock_create_ruleset, &ra, size, 0); // close-on-exec always
	if (rs < 0)
		die("landlock ruleset", NULL);
	hold(rs);
	uint64_t read = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR;
	for (int i = 0; i < s->nread; i++)
		add_rule(rs, s->read[i], read, ra.handled_access_fs);
	for (int i = 0; i < s->nwrite; i++)
		add_rule(rs, s->write[i], ra.handled_access_fs, ra.handled_access_fs);
	return rs;
}

static void restrict_self(int rs) {
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		die("no_new_privs", NULL);
	if (syscall(SYS_landlock_restrict_self, rs, 0) != 0)
		die("landlock restrict", NULL);
}

static void landlock(struct spec *s) {
	int rs = ruleset(s);
	restrict_self(rs);
	close(rs);
}

// mounts makes the mount namespace the process has (a new one, mounts
// private) into the spec's view: pins, read-only paths, writable data
// directories, hidden paths, covered sockets, a devpts of its own.
static void mounts(struct spec *s, char *sockets) {
	if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		die("make mounts private", NULL);
	for (int i = 0; i < s->npin; i++)
		pin(s->pin[i]);
	for (int i = 0; i < s->nprotect; i++)
		protect(s->protect[i]);
	for (int i = 0; i < s->ndata; i++)
		writable(s->data[i]);
	for (int i = 0; i < s->nhide; i++)
		hide(s->hide[i]);
	cover_sockets(s, sockets);
	private_pts();
}

// limit lowers a resource limit to max (0: leaves it); never raises one.
static void limit(int resource, unsigned long long max, const char *what) {
	struct rlimit r;
	if (max == 0 || getrlimit(resource, &r) != 0)
		return;
	if (r.rlim_cur == RLIM_INFINITY || r.rlim_cur > max)
		r.rlim_cur = max;
	if (r.rlim_max == RLIM_INFINITY || r.rlim_max > max)
		r.rlim_max = max;
	if (setrlimit(resource, &r) != 0)
		die("set the limit of", what);
}

// needs_seccomp reports whether the seccomp filter must refuse TIOCSTI
// and TIOCLINUX: on a terminal the target holds when it starts (Landlock
// decides ioctls when a file is opened, so it cannot refuse them on a
// descriptor the target was given), and before Landlock ABI 5 (no
// IOCTL_DEV right). Elsewhere Landlock refuses every ioctl on a device
// opened through a read-only rule (a console, another terminal), the
// target's own ptys are a devpts of its own, and /dev/tty is ENXIO (no
// controlling terminal). Installing the filter (a BPF program compiled
// for each process) was a sixth of a hook start's own cost.
static int needs_seccomp(struct spec *s) {
	if (!s->spawned)
		return 1;
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
	if (abi < 5)
		return 1;
	for (int fd = 0; fd < s->nfds; fd++)
		if (isatty(fd))
			return 1;
	return 0;
}

// confine is the last steps before the exec, in the namespaces already:
// the spec's directory, no capability, the Landlock ruleset (rules, a
// kept one, or -1: built here) and the seccomp filter.
static void confine(struct spec *s, int rules) {
	if (s->dir && chdir(s->dir) != 0)
		die("chdir", s->dir);
	limit(RLIMIT_DATA, s->maxdata, "memory (RLIMIT_DATA)");
	limit(RLIMIT_FSIZE, s->maxfsize, "file size (RLIMIT_FSIZE)");
	drop_caps();
	if (rules >= 0)
		restrict_self(rules);
	else
		landlock(s);
	if (needs_seccomp(s))
		seccomp_tty();
	if (signals_by_seccomp(s))
		seccomp_signals((uint32_t)getppid(), (uint32_t)getpgid(0));
}

// apply applies the policy to the calling process, up to the exec: the
// same steps for the trampoline (after its re-exec) and for a child
// ollm_spawn cloned. sockets is /proc/net/unix of ollm's network namespace
// (host_sockets), read before. own_group: see no_terminal.
static void apply(struct spec *s, char *sockets, int own_group) {
	no_terminal(own_group);
	if (s->joinuser)
		join_namespaces(s);
	else if (s->unshare)
		enter_namespaces(s->loopback);
	if (s->mountns)
		mounts(s, sockets);
	if (s->loopback)
		loopback_up();
	confine(s, -1);
}

__attribute__((constructor)) static void ollm_sandbox_trampoline(int argc, char **argv) {
	const char *env = getenv("_OLLM_SANDBOX");
	if (!env || !*env)
		return;
	char *text = strdup(env);
	// On the heap: the spec's tables are large, and calloc's fresh pages
	// cost nothing until a line lands in them (on the stack, zeroing them
	// faulted in 64 pages per sandboxed process).
	struct spec *s = calloc(1, sizeof *s);
	if (!text || !s)
		die("out of memory", NULL);
	if (parse(text, s) != 0)
		die("policy names no program", NULL);
	unsetenv("_OLLM_SANDBOX");
	if (s->keeper)
		keeper();
	char **args = argv;
	if (s->argv0) {
		if (s->argv0 < 0 || s->argv0 >= argc || !argv[s->argv0]) {
			errno = EINVAL;
			die("no command after the sandbox's arguments", NULL);
		}
		args = argv + s->argv0;
	}
	int failed;
	char *sockets = host_sockets(s, &failed); // before joining another network namespace
	if (failed)
		die("read the unix sockets in", "/proc/net/unix");
	apply(s, sockets, 0);
	char **envp = s->envonly ? kept(s) : environ;
	execve(s->exe, args, envp);
	int e = errno;
	say("exec ", s->exe, ": ", strerror(e), NULL);
	_exit(e == ENOENT ? 127 : 126);
}

// ollm_spawn: the sandboxed process without the trampoline's re-exec.
//
// The trampoline costs a second execve of ollm and the dynamic loader's
// work. ollm_spawn does what posix_spawn does: clone(CLONE_VM|CLONE_VFORK)
// onto a stack of its own, and in the child apply the policy and execve
// the target; the parent's thread waits until the child has executed or
// exited. The child shares ollm's memory, so it only makes system calls on
// what the parent prepared: the spec is parsed and the host's socket table
// read here, before the clone; it writes nothing of the parent's but errno
// and the err fields below, and die writes with write(2) alone.
//
// The mount namespace and the Landlock ruleset are made once per view
// and kept: a mount namespace of its own costs a process about as much as
// the rest of the sandbox (creating it, its mounts, and tearing it down at
// exit before the parent hears of it), and the ruleset's rules a quarter
// of a millisecond. A maker child (below) joins the shared user and
// network namespaces, creates the mount namespace, makes the mounts and
// builds the ruleset, leaving descriptors of both in ollm's table (it
// shares it); each spawned child then joins that namespace and restricts
// itself with that ruleset. A view is what the spec says (all its lines
// but the program) and what the paths it names are when it is made (each
// one's device, inode and type, or its absence), and the host's listening
// unix sockets: a trust file replaced by a rename, a credential directory
// created, a new socket make a new view. A change of ollm's own mount
// table (poll on /proc/self/mountinfo) drops every view. Concurrent calls
// are serialised by the caller (syscall.ForkLock).

struct view {
	char *key; // the spec's lines but X and V, and the sockets
	size_t keylen;
	char *stats; // the paths' stats
	size_t statslen;
	unsigned long long gen; // the number ollm vouched for the stats with
	int mnt, rules;         // -1 for none (no mount namespace)
	unsigned long used;
};

#define MAX_VIEWS 8
static struct view views[MAX_VIEWS];
static int nviews;
static unsigned long view_clock;
static int mountinfo_fd = -1;

struct buf {
	char *p;
	size_t n, cap;
	int failed;
};

static void put(struct buf *b, const void *data, size_t n) {
	if (b->failed)
		return;
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->n + n)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p) {
			b->failed = 1;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, data, n);
	b->n += n;
}

static void put_stat(struct buf *b, const char *path, int follow) {
	struct stat st;
	int r = follow ? stat(path, &st) : lstat(path, &st);
	struct {
		int err;
		unsigned mode;
		unsigned long long dev, ino;
	} f = {0, 0, 0, 0};
	if (r != 0)
		f.err = errno;
	else
		f.mode = st.st_mode, f.dev = st.st_dev, f.ino = st.st_ino;
	put(b, &f, sizeof f);
}

// view_key is the text part of what decides a view (see above): the
// spec's lines but the program and ollm's word (X, V), and the sockets;
// NULL when out of memory.
static char *view_key(const char *spec_text, const char *sockets, size_t *len) {
	struct buf b = {0};
	for (const char *line = spec_text; *line;) {
		const char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) + 1 : strlen(line);
		if (line[0] != 'X' && line[0] != 'V' && line[0] != 'l')
			put(&b, line, n);
		line += n;
	}
	put(&b, "\0", 1);
	// The listening (and datagram) sockets with a path: "flags type path".
	const char *line = sockets ? strchr(sockets, '\n') : NULL;
	while (line && *++line) {
		const char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line);
		unsigned long flags = 0, type = 0;
		int at = 0;
		if (sscanf(line, "%*s %*s %*s %lx %lx %*s %*s %n", &flags, &type, &at) >= 2 && at > 0 && (size_t)at < n && line[at] == '/' && ((flags & 0x10000) || type == 2)) {
			char head[40];
			int h = snprintf(head, sizeof head, "%lx %lx ", flags, type);
			put(&b, head, (size_t)h);
			put(&b, line + at, n - (size_t)at);
			put(&b, "\n", 1);
		}
		line = end;
	}
	if (b.failed) {
		free(b.p);
		return NULL;
	}
	*len = b.n;
	return b.p;
}

// view_stats is the rest: each named path's device, inode and type (or
// its absence). ollm_spawn skips it when ollm vouches for the paths.
static char *view_stats(struct spec *s, size_t *len) {
	struct buf b = {0};
	put(&b, "", 0);
	for (int i = 0; i < s->nread; i++)
		put_stat(&b, s->read[i], 1);
	for (int i = 0; i < s->nwrite; i++)
		put_stat(&b, s->write[i], 1);
	char **lists[] = {s->protect, s->data, s->hide, s->pin, s->sockok, s->sockhide};
	int counts[] = {s->nprotect, s->ndata, s->nhide, s->npin, s->nsockok, s->nsockhide};
	for (int l = 0; l < 6; l++) {
		for (int i = 0; i < counts[l]; i++) {
			put_stat(&b, lists[l][i], 1);
			put_stat(&b, lists[l][i], 0);
		}
	}
	if (b.failed) {
		free(b.p);
		return NULL;
	}
	*len = b.n;
	return b.p ? b.p : strdup("");
}

static void drop_view(int i) {
	free(views[i].key);
	free(views[i].stats);
	if (views[i].mnt >= 0)
		close(views[i].mnt);
	if (views[i].rules >= 0)
		close(views[i].rules);
	views[i] = views[--nviews];
}

// ollm_drop_views closes every kept view (ollm calls it when no sandboxed
// process started for a while: a view's mount namespace keeps the
// filesystems it saw alive, so one the user unmounts stays busy).
void ollm_drop_views(void) {
	while (nviews > 0)
		drop_view(0);
}

// mounts_changed reports whether ollm's mount table changed since the
// last call (the first call opens it and says no).
static int mounts_changed(void) {
	if (mountinfo_fd < 0) {
		mountinfo_fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
		return 0;
	}
	struct pollfd pfd = {mountinfo_fd, POLLPRI, 0};
	if (poll(&pfd, 1, 0) <= 0 || !(pfd.revents & (POLLPRI | POLLERR)))
		return 0;
	// Reading it to the end clears the event.
	char tmp[4096];
	lseek(mountinfo_fd, 0, SEEK_SET);
	while (read(mountinfo_fd, tmp, sizeof tmp) > 0)
		;
	return 1;
}

struct maker {
	struct spec *s;
	char *sockets;
	volatile int mnt, rules, failed;
};

static int maker_main(void *arg) {
	struct maker *m = arg;
	quiet = 1;
	if (m->s->mountns) {
		join_namespaces(m->s);
		mounts(m->s, m->sockets);
		m->mnt = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
		if (m->mnt < 0)
			die("open the mount namespace", NULL);
		hold(m->mnt);
	}
	m->rules = ruleset(m->s);
	_exit(0); // its descriptors stay in ollm's table: the view's
}

// vfork_call runs fn(arg) in a child sharing ollm's memory (and what flags
// add), on a stack of its own, with every signal blocked: a handler of
// ollm's (the Go runtime's) must not run on the child's stack. It
// returns once the child has executed or exited: the pid, or -1 with
// errno.
//
// The stack is made once and kept: calls are serialised (ForkLock) and
// each returns only when its child no longer runs on it, so its pages are
// not faulted in and freed again at every start.
static pid_t vfork_call(int (*fn)(void *), int flags, void *arg) {
	static char *stack;
	const size_t size = 256 * 1024;
	if (!stack) {
		char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		if (p == MAP_FAILED)
			return -1;
		stack = p;
	}
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid_t pid = clone(fn, stack + size, CLONE_VM | CLONE_VFORK | SIGCHLD | flags, arg);
	int e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return pid;
}

// make_view runs the maker; 0 with *mnt and *rules set, -1 when it failed
// (the spawned child then does every step itself and reports the failure).
static int make_view(struct spec *s, char *sockets, int *mnt, int *rules) {
	struct maker m = {s, sockets, -1, -1, 0};
	pid_t pid = vfork_call(maker_main, CLONE_FILES, &m);
	quiet = 0;
	for (int i = 0; i < 4; i++)
		held[i] = -1;
	int status = -1;
	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	if (pid < 0 || status != 0 || (s->mountns && m.mnt < 0) || m.rules < 0) {
		if (m.mnt >= 0)
			close(m.mnt);
		if (m.rules >= 0)
			close(m.rules);
		return -1;
	}
	*mnt = m.mnt;
	*rules = m.rules;
	return 0;
}

struct spawn_child {
	struct spec *s;
	char *sockets;
	const char *dir;
	char **argv, **envp;
	const int *fds;
	int nfds;
	int mnt, rules; // a view's, or -1: every step here
	int user, net;  // the shared namespaces' descriptors (spawn_main)
	volatile int err; // errno of a failed execve or dup, 0 when it ran
};

// inherited_ns returns a copy, above the target's descriptors, of the
// descriptor a "/proc/<ollm>/fd/<n>" path names, which a child of ollm
// holds too; -1 for another path (then it is opened).
static int inherited_ns(const char *path, int above) {
	int pid = 0, fd = -1, end = 0;
	if (sscanf(path, "/proc/%d/fd/%d%n", &pid, &fd, &end) != 2 || path[end] != '\0' || pid != (int)getppid() || fd < 0)
		return -1;
	return fcntl(fd, F_DUPFD_CLOEXEC, above);
}

static int spawn_main(void *arg) {
	struct spawn_child *c = arg;
	// Handlers are ollm's (the Go runtime's): a signal arriving before the
	// exec would run one on ollm's memory. Back to the defaults; ignored
	// signals stay ignored, as across exec. The kernel's struct (glibc's
	// differs, and its sigaction refuses the signals it keeps for itself,
	// which the Go runtime may handle).
	struct {
		void *handler;
		unsigned long flags;
		void *restorer;
		uint64_t mask;
	} sa, dfl = {0};
	for (int sig = 1; sig <= 64; sig++) {
		if (syscall(SYS_rt_sigaction, sig, NULL, &sa, 8) == 0 && sa.handler != (void *)SIG_IGN && sa.handler != (void *)SIG_DFL)
			syscall(SYS_rt_sigaction, sig, &dfl, NULL, 8);
	}
	// The view's descriptors above the ones the target gets, then the
	// target's: each source moved above them, then onto 0, 1, 2, 3... so
	// that die writes to the target's stderr.
	int moved[64];
	if (c->nfds > 64) {
		c->err = EMFILE;
		_exit(127);
	}
	// ollm's own descriptors of the shared namespaces (this child has a
	// copy of its table), else opened by path; before the first join:
	// once in the user namespace, ollm's /proc entries are another's.
	c->user = c->net = -1;
	if (c->rules >= 0) {
		if (c->s->joinuser && (c->user = inherited_ns(c->s->joinuser, c->nfds)) < 0)
			c->user = open_ns(c->s->joinuser);
		if (c->s->joinnet && (c->net = inherited_ns(c->s->joinnet, c->nfds)) < 0)
			c->net = open_ns(c->s->joinnet);
		if (c->user >= 0 && c->user < c->nfds)
			c->user = fcntl(c->user, F_DUPFD_CLOEXEC, c->nfds);
		if (c->net >= 0 && c->net < c->nfds)
			c->net = fcntl(c->net, F_DUPFD_CLOEXEC, c->nfds);
	}
	int mnt = c->mnt, rules = c->rules;
	if (mnt >= 0 && (mnt = fcntl(mnt, F_DUPFD_CLOEXEC, c->nfds)) < 0) {
		c->err = errno;
		_exit(127);
	}
	if (rules >= 0 && (rules = fcntl(rules, F_DUPFD_CLOEXEC, c->nfds)) < 0) {
		c->err = errno;
		_exit(127);
	}
	for (int i = 0; i < c->nfds; i++) {
		moved[i] = fcntl(c->fds[i], F_DUPFD_CLOEXEC, c->nfds);
		if (moved[i] < 0) {
			c->err = errno;
			_exit(127);
		}
	}
	for (int i = 0; i < c->nfds; i++) {
		if (dup2(moved[i], i) < 0) {
			c->err = errno;
			_exit(127);
		}
	}
	// No other descriptor of ollm's reaches the target, even one it was
	// started with that is not close-on-exec (a terminal on descriptor 3).
	syscall(SYS_close_range, (unsigned)c->nfds, ~0U, CLOSE_RANGE_CLOEXEC);
	c->s->spawned = 1;
	c->s->nfds = c->nfds;
	if (rules < 0) {
		if (c->dir && *c->dir && chdir(c->dir) != 0) {
			c->err = errno;
			_exit(127);
		}
		apply(c->s, c->sockets, 1);
	} else {
		struct spec *s = c->s;
		no_terminal(1);
		int user = c->user, net = c->net;
		if (user >= 0 && setns(user, CLONE_NEWUSER) != 0)
			die("join the user namespace", s->joinuser);
		if (net >= 0 && setns(net, CLONE_NEWNET) != 0)
			die("join the network namespace", s->joinnet);
		if (user >= 0)
			close(user);
		if (net >= 0)
			close(net);
		if (mnt >= 0 && setns(mnt, CLONE_NEWNS) != 0)
			die("join the mount namespace", NULL);
		// Joining a mount namespace moves to its root: the directory after.
		if (c->dir && *c->dir && chdir(c->dir) != 0) {
			c->err = errno;
			_exit(127);
		}
		confine(s, rules);
	}
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execve(c->s->exe, c->argv, c->envp);
	c->err = errno;
	_exit(127);
}

// ollm_spawn starts argv[0]'s program (the spec's X line) under the
// policy in spec_text with envp, in dir, with fds[i] as descriptor i. It
// returns the pid, or -1 with *errnum set when nothing ran (a spec that
// needs clone's namespace flags: EINVAL; exec or dup failed: its errno).
// A policy step that fails exits the child with 125 and a line on its
// stderr, as in the trampoline. *reused is 1 when a kept view served.
int ollm_spawn(const char *spec_text, const char *dir, char **argv, char **envp, const int *fds, int nfds, int *errnum, int *reused) {
	*errnum = 0;
	*reused = 0;
	char *text = strdup(spec_text);
	struct spec *s = calloc(1, sizeof *s);
	if (!text || !s) {
		free(text);
		free(s);
		*errnum = ENOMEM;
		return -1;
	}
	if (parse(text, s) != 0 || s->keeper || s->unshare || s->argv0 || s->envonly || s->loopback || (s->mountns && !s->joinuser)) {
		// namespaces that clone must create, or lines for another launcher
		free(text);
		free(s);
		*errnum = EINVAL;
		return -1;
	}
	int failed;
	char *sockets = host_sockets(s, &failed);
	if (failed) {
		*errnum = errno;
		free(text);
		free(s);
		return -1;
	}
	// The view: a kept one, else a new one kept (the oldest goes).
	if (mounts_changed())
		while (nviews > 0)
			drop_view(0);
	int mnt = -1, rules = -1;
	size_t keylen = 0, statslen = 0;
	char *key = view_key(spec_text, sockets, &keylen);
	char *stats = NULL;
	// ollm's word first: the same text and the number it vouched for
	// the view's stats with mean the paths are as they were then.
	for (int i = 0; key && s->vouched && i < nviews; i++) {
		if (views[i].gen == s->vouched && views[i].keylen == keylen && memcmp(views[i].key, key, keylen) == 0) {
			mnt = views[i].mnt;
			rules = views[i].rules;
			views[i].used = ++view_clock;
			*reused = 1;
			break;
		}
	}
	if (key && rules < 0)
		stats = view_stats(s, &statslen);
	for (int i = 0; stats && rules < 0 && i < nviews; i++) {
		if (views[i].keylen == keylen && memcmp(views[i].key, key, keylen) == 0 && views[i].statslen == statslen && memcmp(views[i].stats, stats, statslen) == 0) {
			mnt = views[i].mnt;
			rules = views[i].rules;
			views[i].used = ++view_clock;
			views[i].gen = s->vouched;
			*reused = 1;
			break;
		}
	}
	if (key && stats && rules < 0) {
		// The maker changes the socket table as it covers: a copy.
		char *copy = sockets ? strdup(sockets) : NULL;
		if ((!sockets || copy) && make_view(s, copy, &mnt, &rules) == 0) {
			if (nviews == MAX_VIEWS) {
				int oldest = 0;
				for (int i = 1; i < nviews; i++)
					if (views[i].used < views[oldest].used)
						oldest = i;
				drop_view(oldest);
			}
			views[nviews++] = (struct view){key, keylen, stats, statslen, s->vouched, mnt, rules, ++view_clock};
			key = NULL; // kept
			stats = NULL;
		}
		free(copy);
	}
	free(stats);
	free(key);
	struct spawn_child c = {s, sockets, dir, argv, envp, fds, nfds, mnt, rules, -1, -1, 0};
	pid_t pid = vfork_call(spawn_main, 0, &c);
	int cloneErr = errno;
	free(sockets);
	free(text);
	free(s);
	if (pid < 0) {
		*errnum = cloneErr;
		return -1;
	}
	if (c.err != 0) {
		int status;
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		*errnum = c.err;
		return -1;
	}
	return pid;
}
