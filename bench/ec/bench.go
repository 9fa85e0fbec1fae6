package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"time"

	"github.com/klauspost/reedsolomon"
)

// runBench times Encode and ReconstructData (the first P data shards lost) over one set of shards, each for at
// least the given seconds after a warm-up, and prints MB/s of data (10^6 bytes of the D data shards per second).
func runBench(args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	data := fs.Int("data", 4, "data shards")
	parity := fs.Int("parity", 2, "parity shards")
	shardBytes := fs.Int("shard-bytes", 1<<20, "bytes per shard")
	seconds := fs.Float64("seconds", 3, "seconds per measurement")
	simd := fs.String("simd", "auto", "auto: every SIMD path the CPU has (GFNI, AVX-512, AVX2); avx2: AVX2 at most; none: pure Go")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var opts []reedsolomon.Option
	switch *simd {
	case "auto":
	case "avx2":
		opts = append(opts, reedsolomon.WithGFNI(false), reedsolomon.WithAVXGFNI(false), reedsolomon.WithAVX512(false))
	case "none":
		opts = append(opts, reedsolomon.WithGFNI(false), reedsolomon.WithAVXGFNI(false), reedsolomon.WithAVX512(false),
			reedsolomon.WithAVX2(false), reedsolomon.WithSSSE3(false), reedsolomon.WithSSE2(false))
	default:
		return fmt.Errorf("-simd must be auto, avx2 or none, got %q", *simd)
	}
	enc, err := reedsolomon.New(*data, *parity, opts...)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	shards := make([][]byte, *data+*parity)
	for i := range shards {
		shards[i] = make([]byte, *shardBytes)
		for j := range shards[i] {
			shards[i][j] = byte(rng.Uint32())
		}
	}
	work := make([][]byte, len(shards))
	encode := func() error { return enc.Encode(shards) }
	decode := func() error {
		copy(work, shards)
		for i := 0; i < *parity; i++ {
			work[i] = work[i][:0] // lost: ReconstructData refills it in place (capacity kept)
		}
		return enc.ReconstructData(work)
	}
	dataBytes := float64(*data) * float64(*shardBytes)
	encMBs, err := measure(encode, dataBytes, *seconds)
	if err != nil {
		return err
	}
	decMBs, err := measure(decode, dataBytes, *seconds)
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(map[string]any{
		"impl": "klauspost/reedsolomon", "simd": *simd, "data": *data, "parity": *parity, "shard_bytes": *shardBytes,
		"gomaxprocs": runtime.GOMAXPROCS(0), "encode_mb_s": round1(encMBs), "decode_mb_s": round1(decMBs),
	})
}

func measure(op func() error, dataBytes, seconds float64) (float64, error) {
	warm := time.Now()
	for time.Since(warm).Seconds() < seconds/3 {
		if err := op(); err != nil {
			return 0, err
		}
	}
	start, n := time.Now(), 0
	for time.Since(start).Seconds() < seconds {
		if err := op(); err != nil {
			return 0, err
		}
		n++
	}
	if n == 0 {
		return 0, fmt.Errorf("no iteration")
	}
	return dataBytes * float64(n) / time.Since(start).Seconds() / 1e6, nil
}

func round1(v float64) float64 { return float64(int64(v*10+0.5)) / 10 }
