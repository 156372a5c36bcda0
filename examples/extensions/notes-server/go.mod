module example.com/ollm-examples/notes-server

go 1.22
