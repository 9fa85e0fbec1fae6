module granary/bench/ec

go 1.24

require github.com/klauspost/reedsolomon v1.14.2

require (
	github.com/klauspost/cpuid/v2 v2.3.0 // indirect
	golang.org/x/sys v0.30.0 // indirect
)
