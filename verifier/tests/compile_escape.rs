//! C, C++ and Go sources that try to make the compiler read the host, through the real service
//! (Rust's: compile_escape_rust.rs; what both share: escape/).
//!
//! A canary file with a random secret is created on the host, readable by the service's user,
//! so that only the compiler's confinement can keep it out. Every C technique is sent as C and
//! as C++, every Go technique as Go, through `POST /run_code` and `POST /v1/verify/code`; the
//! secret must appear nowhere in any response. Under namespaces the host's paths do not exist in the jail at all, so a
//! technique aimed at the canary must get the same answer as one aimed at a path that does not
//! exist (nothing about existence leaks either).

mod escape;
mod support;

use escape::{
    MinMax, Technique, confinement_of, judge, min_max_passes_both_endpoints,
    techniques_leak_nothing,
};
use sandbox::ConfinementChoice;
use serde_json::json;
use support::TestService;

/// Every technique prints what it got, so a leak would show in the run's stdout if it compiled.
const TECHNIQUES: &[Technique] = &[
    Technique {
        name: "include absolute",
        source: "#include <stdio.h>\nconst char *s =\n#include \"{P}\"\n;\nint main(void){puts(s);return 0;}\n",
    },
    Technique {
        name: "include angle absolute",
        source: "#include <stdio.h>\nconst char *s =\n#include <{P}>\n;\nint main(void){puts(s);return 0;}\n",
    },
    Technique {
        name: "include relative dot-dot",
        source: "#include <stdio.h>\nconst char *s =\n#include \"../../../../../../../../../..{P}\"\n;\nint main(void){puts(s);return 0;}\n",
    },
    Technique {
        name: "include through the toolchain's folder",
        source: "#include <stdio.h>\nconst char *s =\n#include \"/usr/lib/wasm32-wasi/../../..{P}\"\n;\nint main(void){puts(s);return 0;}\n",
    },
    Technique {
        name: "include via /proc/self/root",
        source: "#include <stdio.h>\nconst char *s =\n#include \"/proc/self/root{P}\"\n;\nint main(void){puts(s);return 0;}\n",
    },
    Technique {
        name: "include via the service's /proc/PID/root",
        source: "#include <stdio.h>\nconst char *s =\n#include \"/proc/{PID}/root{P}\"\n;\nint main(void){puts(s);return 0;}\n",
    },
    Technique {
        name: "include the service's environment",
        source: "#include <stdio.h>\n#include \"/proc/{PID}/environ\"\nint main(void){return 0;}\n// {P}\n",
    },
    Technique {
        name: "import (Objective-C style)",
        source: "#include <stdio.h>\nconst char *s =\n#import \"{P}\"\n;\nint main(void){puts(s);return 0;}\n",
    },
    Technique {
        name: "include_next",
        source: "#include <stdio.h>\nconst char *s =\n#include_next \"{P}\"\n;\nint main(void){puts(s);return 0;}\n",
    },
    Technique {
        name: "embed",
        source: "#include <stdio.h>\nstatic const char s[] = {\n#embed \"{P}\"\n, 0};\nint main(void){puts(s);return 0;}\n",
    },
    Technique {
        name: "has_include probe",
        source: "#include <stdio.h>\nint main(void){\n#if __has_include(\"{P}\")\nputs(\"EXISTS\");\n#else\nputs(\"ABSENT\");\n#endif\nreturn 0;}\n",
    },
    Technique {
        name: "has_embed probe",
        source: "#include <stdio.h>\nint main(void){\n#if __has_embed(\"{P}\")\nputs(\"EXISTS\");\n#else\nputs(\"ABSENT\");\n#endif\nreturn 0;}\n",
    },
    Technique {
        name: "pragma GCC dependency",
        source: "#pragma GCC dependency \"{P}\"\nint main(void){return 0;}\n",
    },
    Technique {
        name: "_Pragma dependency",
        source: "_Pragma(\"GCC dependency \\\"{P}\\\"\")\nint main(void){return 0;}\n",
    },
    Technique {
        name: "line directive then error",
        source: "#line 1 \"{P}\"\nint main(void){ return undefined_name; }\n",
    },
    Technique {
        name: "GNU line marker then error",
        source: "# 1 \"{P}\" 1\nint main(void){ return undefined_name; }\n",
    },
    Technique {
        name: "assembler incbin",
        source: "#include <stdio.h>\n__asm__(\".section .data.leak,\\\"\\\",@\\n.globl leak\\nleak:\\n.incbin \\\"{P}\\\"\\n.byte 0\\n\");\nextern const char leak[];\nint main(void){puts(leak);return 0;}\n",
    },
    Technique {
        name: "include /dev/stdin",
        source: "#include <stdio.h>\nconst char *s =\n#include \"/dev/stdin\"\n;\nint main(void){puts(s);return 0;}\n// {P}\n",
    },
    Technique {
        name: "include the host's /etc/passwd",
        source: "#include <stdio.h>\nconst char *s =\n#include \"/etc/passwd\"\n;\nint main(void){puts(s);return 0;}\n// {P}\n",
    },
];

/// The Go techniques: what the `go` command would read for a source (embed patterns, cgo
/// preambles, imports by path, generate and cgo directives, line directives). The sandbox runs
/// Go's compiler and linker without it, so none may read the host, nor reveal a path exists.
const GO_TECHNIQUES: &[Technique] = &[
    Technique {
        name: "go:embed absolute",
        source: "package main\n\nimport (\n\t_ \"embed\"\n\t\"fmt\"\n)\n\n//go:embed {P}\nvar s string\n\nfunc main() { fmt.Print(s) }\n",
    },
    Technique {
        name: "go:embed relative dot-dot",
        source: "package main\n\nimport (\n\t_ \"embed\"\n\t\"fmt\"\n)\n\n//go:embed ../../../../../../../../..{P}\nvar s string\n\nfunc main() { fmt.Print(s) }\n",
    },
    Technique {
        name: "go:embed of /etc/passwd",
        source: "package main\n\nimport (\n\t_ \"embed\"\n\t\"fmt\"\n)\n\n//go:embed /etc/passwd\nvar s string\n\nfunc main() { fmt.Print(s) }\n// {P}\n",
    },
    Technique {
        name: "cgo preamble include",
        source: "package main\n\n// #include \"{P}\"\nimport \"C\"\n\nfunc main() {}\n",
    },
    Technique {
        name: "import by absolute path",
        source: "package main\n\nimport c \"{P}\"\n\nfunc main() { println(c.X) }\n",
    },
    Technique {
        name: "import of the toolchain's internals",
        source: "package main\n\nimport \"internal/godebug\"\n\nfunc main() { println(godebug.New(\"{P}\").Value()) }\n",
    },
    Technique {
        name: "import of a module (download attempt)",
        source: "package main\n\nimport \"golang.org/x/exp/slices\"\n\nfunc main() { println(slices.Max([]int{1}), \"{P}\") }\n",
    },
    Technique {
        name: "go:generate",
        source: "//go:generate cat {P}\npackage main\n\nfunc main() {}\n",
    },
    Technique {
        name: "line directive then error",
        source: "package main\n\n//line {P}:1\nfunc main() { undefined() }\n",
    },
    Technique {
        name: "run-time read of the path",
        source: "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc main() {\n\tb, err := os.ReadFile(\"{P}\")\n\tfmt.Println(string(b), err != nil)\n}\n",
    },
];

/// The confinement this service reports for C/C++ (`None`: C/C++ unsupported here).
async fn confinement(s: &TestService) -> Option<String> {
    confinement_of(s, "c").await
}

/// Sends every technique as C and C++ through both endpoints of a service confined by `choice`.
async fn no_technique_leaks(choice: ConfinementChoice) {
    techniques_leak_nothing(choice, TECHNIQUES, &["c", "cpp"]).await;
}

#[tokio::test]
async fn no_technique_reads_the_host_under_namespaces() {
    no_technique_leaks(ConfinementChoice::Namespaces).await;
}

#[tokio::test]
async fn no_technique_reads_the_host_under_landlock() {
    no_technique_leaks(ConfinementChoice::Landlock).await;
}

#[tokio::test]
async fn no_go_technique_reads_the_host_under_namespaces() {
    techniques_leak_nothing(ConfinementChoice::Namespaces, GO_TECHNIQUES, &["go"]).await;
}

#[tokio::test]
async fn no_go_technique_reads_the_host_under_landlock() {
    techniques_leak_nothing(ConfinementChoice::Landlock, GO_TECHNIQUES, &["go"]).await;
}

#[tokio::test]
async fn go_programs_pass_through_both_endpoints() {
    let go = "package main\n\nimport (\n\t\"fmt\"\n\t\"sort\"\n)\n\nfunc main() {\n\tvar n int\n\tfmt.Scan(&n)\n\txs := make([]int, n)\n\tfor i := range xs {\n\t\tfmt.Scan(&xs[i])\n\t}\n\tsort.Ints(xs)\n\tfmt.Println(xs[0], xs[n-1])\n}\n";
    min_max_passes_both_endpoints(MinMax {
        names: ["go", "golang"],
        fences: ["go", "go"],
        source: go,
        wrong: go.replace("xs[0], xs[n-1]", "xs[n-1], xs[0]"),
        broken: (
            "package main\n\nfunc main() { x := 1 }\n",
            "declared and not used",
        ),
    })
    .await;
}

#[tokio::test]
async fn legitimate_programs_still_compile_and_pass() {
    let s = TestService::start().await;
    if confinement(&s).await.is_none() {
        return;
    }
    let c = "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <math.h>\nint main(void){long a,b;if(scanf(\"%ld %ld\",&a,&b)!=2)return 1;printf(\"%ld %.1f\\n\",a+b,sqrt(16.0));return 0;}\n";
    let cpp = "#include <iostream>\n#include <vector>\n#include <algorithm>\n#include <map>\n#include <string>\nint main(){int n;std::cin>>n;std::vector<int> v(n);for(auto&x:v)std::cin>>x;std::sort(v.begin(),v.end());std::map<int,int> m;for(int x:v)m[x]++;std::cout<<v.front()<<' '<<v.back()<<' '<<m.size()<<\"\\n\";}\n";
    for (language, code, stdin, expected) in [
        ("c", c, "2 40", "42 4.0\n"),
        ("cpp", cpp, "5\n3 1 3 9 2", "1 9 4\n"),
    ] {
        let (status, v) = s
            .post(
                "/run_code",
                &json!({"code": code, "language": language, "stdin": stdin}),
            )
            .await;
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["status"], "Success", "{language}: {v}");
        assert_eq!(v["run_result"]["stdout"], expected, "{language}: {v}");
    }
    // Assert-style C++ through the judge: the program's own checks decide.
    let reference = json!({"language": "cpp", "style": "stdio",
        "cases": [{"stdin": "3 4\n", "stdout": "7\n"}, {"stdin": "-1 1\n", "stdout": "0\n"}]});
    let response = "```cpp\n#include <cassert>\n#include <cstdio>\nint add(int a,int b){return a+b;}\nint main(){assert(add(2,2)==4);int a,b;if(scanf(\"%d %d\",&a,&b)!=2)return 1;printf(\"%d\\n\",add(a,b));}\n```";
    let v = judge(&s, &reference, response).await;
    assert_eq!(v["correct"], true, "{v}");
}
