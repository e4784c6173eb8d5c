// Package interrupt turns the signals that stop a command into a graceful
// stop: the first SIGINT or SIGTERM closes a channel ([Handler.Done]) and
// cancels a context ([Handler.Context]), so that training finishes its
// iteration and saves what it has and the streaming commands stop reading
// and flush what is complete; a second signal exits the process at once
// (every file is written atomically, so existing files stay intact).
//
// A command that stopped on the first signal returns an [Error] and exits
// with [ExitCode]: 128 + the signal's number (130 for SIGINT, 143 for
// SIGTERM), as shells report a process killed by that signal.
//
// It knows nothing of what the command does and imports only the standard
// library.
package interrupt
