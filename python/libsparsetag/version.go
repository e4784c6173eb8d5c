package main

// version names the library; Python checks that it loaded the library of
// its own package.
func version() string { return "sparsetag-capi 2" }
