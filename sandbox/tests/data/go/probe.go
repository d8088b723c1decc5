// One program, many behaviours, chosen by the first word of stdin: a single compile covers every
// run-time check of sandbox/tests/go.rs.
package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"runtime"
	"strings"
	"time"
)

func main() {
	in := bufio.NewReader(os.Stdin)
	var what string
	fmt.Fscan(in, &what)
	switch what {
	case "sum":
		var a, b int64
		if _, err := fmt.Fscan(in, &a, &b); err != nil {
			os.Exit(3)
		}
		fmt.Println(a + b)
		if a > b {
			os.Exit(1)
		}
	case "panic":
		var xs []int
		fmt.Println("before")
		fmt.Println(xs[len(what)])
	case "deadlock":
		ch := make(chan int)
		<-ch
	case "loop":
		n := 0
		for {
			n++
		}
	case "sleep":
		time.Sleep(time.Hour)
	case "alloc":
		var keep [][]byte
		for {
			keep = append(keep, make([]byte, 16<<20))
			keep[len(keep)-1][0] = 1
		}
	case "flood":
		w := bufio.NewWriter(os.Stdout)
		for {
			w.WriteString("flood flood flood flood\n")
		}
	case "goroutines":
		results := make(chan int)
		for i := 0; i < 100; i++ {
			go func(i int) { results <- i * i }(i)
		}
		total := 0
		for i := 0; i < 100; i++ {
			total += <-results
		}
		fmt.Println(total)
	case "files":
		data, err := os.ReadFile("data/in.txt")
		if err != nil {
			fmt.Println("read:", err)
			os.Exit(1)
		}
		up := strings.ToUpper(string(data))
		if err := os.WriteFile("out.txt", []byte(up), 0o644); err != nil {
			fmt.Println("write:", err)
			os.Exit(1)
		}
		fmt.Print(up)
	case "host":
		for _, p := range []string{"/etc/passwd", "../../../../etc/passwd", "/proc/self/environ", os.Args[0]} {
			_, err := os.ReadFile(p)
			fmt.Println(p, err != nil)
		}
		entries, err := os.ReadDir("/")
		fmt.Println("root entries", len(entries), err != nil)
	case "net":
		_, err := net.Dial("tcp", "127.0.0.1:80")
		fmt.Println("dial", err != nil)
	case "env":
		fmt.Printf("goroot=%q env=%q args=%q\n", runtime.GOROOT(), os.Environ(), os.Args)
	default:
		fmt.Println("unknown", what)
		os.Exit(4)
	}
}
