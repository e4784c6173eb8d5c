package inference

// Test hooks, compiled only into this package's tests.

// SetForceLogSpace makes every ForwardBackward on ws use the log-space path.
func SetForceLogSpace(ws *Workspace, v bool) { ws.forceLog = v }

// UsedLogSpace reports whether the last ForwardBackward on ws used the
// log-space path.
func UsedLogSpace(ws *Workspace) bool { return ws.logSpace }

// SetGoKernels makes ws run the Go kernels even where the assembly ones
// can run (v true), or the assembly where the machine has it (v false).
func SetGoKernels(ws *Workspace, v bool) { ws.goKernels = v }

// HaveAsm reports whether the assembly kernels can run on this machine.
func HaveAsm() bool { return haveAsm }
