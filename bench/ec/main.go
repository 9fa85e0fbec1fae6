// Command ecref is the reference for Granary's Reed-Solomon codec: klauspost/reedsolomon (the library AIStore
// uses) with its default encoding matrix (Vandermonde made systematic).
//
//	ecref vectors DIR                      writes the shared test vectors (shard files and manifest.txt) to DIR
//	ecref bench -data D -parity P -shard-bytes N -seconds S [-simd auto|avx2|none]
//	                                       prints one JSON line: encode and reconstruct MB/s of data
//
// bench/ec.sh runs it with GOMAXPROCS=1 for a per-core figure.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "vectors":
		if len(os.Args) != 3 {
			usage()
		}
		err = writeVectors(os.Args[2])
	case "bench":
		err = runBench(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "ecref:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: ecref vectors DIR | ecref bench -data D -parity P -shard-bytes N -seconds S [-simd auto|avx2|none]")
	os.Exit(2)
}
