package inference

// Test hooks, compiled only into this package's tests.

// SetForceLogSpace makes every ForwardBackward on ws use the log-space path.
func SetForceLogSpace(ws *Workspace, v bool) { ws.forceLog = v }

// UsedLogSpace reports whether the last ForwardBackward on ws used the
// log-space path.
func UsedLogSpace(ws *Workspace) bool { return ws.logSpace }

// SetUseAsm selects the assembly kernels (if the machine has them) or the
// Go ones for every function of the package, and returns the previous
// setting. Not safe while other goroutines use the package.
func SetUseAsm(v bool) bool {
	old := useAsm
	useAsm = v && haveAsm
	return old
}

// HaveAsm reports whether the assembly kernels can run on this machine.
func HaveAsm() bool { return haveAsm }
