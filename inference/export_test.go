package inference

// Test hooks, compiled only into this package's tests.

// SetForceLogSpace makes every ForwardBackward on ws use the log-space path.
func SetForceLogSpace(ws *Workspace, v bool) { ws.forceLog = v }

// UsedLogSpace reports whether the last ForwardBackward on ws used the
// log-space path.
func UsedLogSpace(ws *Workspace) bool { return ws.logSpace }
