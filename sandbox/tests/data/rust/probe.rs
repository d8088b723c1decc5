// One program, many behaviours, chosen by the first word of stdin: a single compile covers every
// run-time check of sandbox/tests/rust.rs.
use std::collections::HashMap;
use std::io::{BufWriter, Read, Write};

fn main() {
    let mut input = String::new();
    std::io::stdin().read_to_string(&mut input).unwrap();
    let mut words = input.split_whitespace();
    let what = words.next().unwrap_or("");
    match what {
        "sum" => {
            let mut next = || words.next().and_then(|w| w.parse::<i64>().ok());
            // let-else is Rust 1.65; this rustc is 1.63.
            let (a, b) = match (next(), next()) {
                (Some(a), Some(b)) => (a, b),
                _ => std::process::exit(3),
            };
            println!("{}", a + b);
            if a > b {
                std::process::exit(1);
            }
        }
        "panic" => {
            let xs: Vec<i32> = Vec::new();
            println!("before");
            println!("{}", xs[what.len()]);
        }
        "loop" => {
            let mut n: u64 = 0;
            loop {
                n = n.wrapping_mul(6364136223846793005).wrapping_add(1);
                if n == 42 {
                    println!("{n}");
                }
            }
        }
        "sleep" => std::thread::sleep(std::time::Duration::from_secs(3600)),
        "alloc" => {
            let mut keep: Vec<Vec<u8>> = Vec::new();
            loop {
                let mut block = vec![0u8; 16 << 20];
                block[0] = 1;
                keep.push(block);
            }
        }
        "flood" => {
            let mut w = BufWriter::new(std::io::stdout());
            loop {
                let _ = w.write_all(b"flood flood flood flood\n");
            }
        }
        "collections" => {
            let mut counts: HashMap<char, usize> = HashMap::new();
            for c in "the quick brown fox jumps over the lazy dog".chars().filter(|c| *c != ' ') {
                *counts.entry(c).or_default() += 1;
            }
            let mut top: Vec<_> = counts.into_iter().collect();
            top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            let squares: u64 = (0..100u64).map(|i| i * i).sum();
            println!("{squares} {:?}", &top[..2]);
        }
        "files" => {
            let data = match std::fs::read_to_string("data/in.txt") {
                Ok(d) => d,
                Err(e) => {
                    println!("read: {e}");
                    std::process::exit(1);
                }
            };
            let up = data.to_uppercase();
            if let Err(e) = std::fs::write("out.txt", &up) {
                println!("write: {e}");
                std::process::exit(1);
            }
            print!("{up}");
        }
        "host" => {
            for p in ["/etc/passwd", "../../../../etc/passwd", "/proc/self/environ"] {
                println!("{p} {}", std::fs::read(p).is_err());
            }
            // "/" is the working folder's preopen: it lists the run's own files.
            let root = std::fs::read_dir("/").map(|d| d.count());
            println!("root entries {root:?}");
        }
        "net" => {
            println!("connect {}", std::net::TcpStream::connect("127.0.0.1:80").is_err());
        }
        "env" => {
            let vars: Vec<String> = std::env::vars().map(|(k, v)| format!("{k}={v}")).collect();
            let args: Vec<String> = std::env::args().collect();
            println!("env={vars:?} args={args:?}");
        }
        other => {
            println!("unknown {other}");
            std::process::exit(4);
        }
    }
}
