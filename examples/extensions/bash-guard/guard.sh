# bash-guard: an ollm before_tool hook (matcher "shell", failClosed) that
# blocks rm with both -r and -f in any spelling: rm -rf, rm -fr, rm -Rf,
# rm -r -f, rm --recursive --force, /bin/rm -rf, sudo rm -rf, and the same
# inside a pipeline, a list (a && b; c), $(...), or a bash -c string.
#
# Input on stdin (ollm dialect):
#   {"event":"before_tool","data":{"tool_name":"shell","args":{"command":"..."}},"metadata":{...}}
# Output: nothing to let the call through; {"continue":false,"reason":...}
# to block it. Any failure of this script blocks too (failClosed).
#
# Pure bash (no jq), so it runs wherever ollm runs. It errs on the side of
# blocking: quoted text is searched as well, so `echo "rm -rf x"` is
# blocked too.
set -euo pipefail

input=$(cat)

# The JSON string value of "command" (escapes kept), then unescaped.
re='"command"[[:space:]]*:[[:space:]]*"(([^"\\]|\\.)*)"'
if [[ ! $input =~ $re ]]; then
	exit 0 # no command argument: nothing for this guard to judge
fi
raw=${BASH_REMATCH[1]}
raw=${raw//\\\"/\"}
raw=${raw//\\\//\/}
cmd=$(printf '%b' "$raw")

# One simple command per line: split at ; & | newlines, $( ` ( ) and quotes.
segments=$(printf '%s\n' "$cmd" | tr ';&|()`"'"'" '\n\n\n\n\n\n\n\n' | sed 's/\$$//')

blocked=""
while IFS= read -r seg; do
	read -ra words <<<"$seg" || true
	i=0
	# Skip wrappers and VAR=value assignments in front of the program.
	while ((i < ${#words[@]})); do
		case ${words[i]} in
		sudo | env | command | exec | nohup | time | nice | xargs | builtin | -*) i=$((i + 1)) ;;
		*=*) i=$((i + 1)) ;;
		*) break ;;
		esac
	done
	((i < ${#words[@]})) || continue
	[[ ${words[i]##*/} == rm ]] || continue
	recursive="" force=""
	for w in "${words[@]:i+1}"; do
		case $w in
		--recursive) recursive=1 ;;
		--force) force=1 ;;
		--*) ;;
		-*)
			[[ $w == *[rR]* ]] && recursive=1
			[[ $w == *f* ]] && force=1
			;;
		esac
	done
	if [[ -n $recursive && -n $force ]]; then
		blocked=1
		break
	fi
done <<<"$segments"

if [[ -n $blocked ]]; then
	printf '%s\n' '{"continue": false, "reason": "bash-guard: rm with -r and -f is blocked in this project; remove specific paths, or ask the user to run it"}'
fi
exit 0
