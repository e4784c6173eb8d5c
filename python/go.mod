module github.com/sparsetag/sparsetag/python

go 1.24.0

require github.com/sparsetag/sparsetag v0.0.0

require (
	golang.org/x/sys v0.35.0 // indirect
	gonum.org/v1/gonum v0.17.0 // indirect
)

replace github.com/sparsetag/sparsetag => ../
