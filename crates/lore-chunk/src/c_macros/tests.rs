use super::*;

/// The text patched (every branch), its length and lines kept.
fn patched(src: &str) -> String {
    let out = patch_c(src, true).expect("something to patch");
    assert_eq!(out.len(), src.len(), "{out}");
    assert_eq!(out.lines().count(), src.lines().count(), "{out}");
    out
}

/// The file, as `analyze_file` reads it, has no parse error.
fn assert_reads_whole(path: &str, src: &str) {
    let a = crate::analyze_file(path, src, &crate::ChunkOptions::default());
    assert!(a.parse_error.is_none(), "{path}: {:?}", a.parse_error);
}

#[test]
fn kernel_macros_read_as_plain_c_at_the_same_offsets() {
    let src = "static int __init foo(void __user *p) {\n\tlist_for_each_entry(pos, &head, list) {\n\t\tn++;\n\t}\n\treturn 0;\n}\nDEFINE_PER_CPU(struct rq, runqueues);\nvoid __printf(1, 2) log(const char *f, ...);\nstruct e *e = container_of(p, struct e, node);\nconst char *s = \"__init\";\n";
    let out = patch_c(src, true).unwrap();
    let more = "SYSCALL_DEFINE2(kill, pid_t, pid, int, sig)\n{\n\tu32 n = min_t(unsigned int, a, b);\n}\nstatic DEFINE_MUTEX(lock);\nstatic const struct ops o = {\n\t.a = f,\n#ifdef CONFIG_X\n\t.b = g,\n#endif\n};\n";
    let more_out = patch_c(more, true).unwrap();
    assert_eq!(more_out.len(), more.len());
    assert!(
        more_out.starts_with("long            kill( pid_t  pid, int  sig)"),
        "{more_out}"
    );
    assert!(more_out.contains("min_t(           _, a, b)"), "{more_out}");
    assert!(
        more_out.contains("static int          lock ;"),
        "{more_out}"
    );
    assert!(!more_out.contains("#ifdef"), "{more_out}");
    assert_eq!(out.len(), src.len());
    assert_eq!(out.lines().count(), src.lines().count());
    assert!(
        out.starts_with("static int        foo(void        *p) {"),
        "{out}"
    );
    assert!(
        out.contains("\twhile              (pos, &head, list) {"),
        "{out}"
    );
    assert!(
        out.contains("               struct rq  runqueues ;"),
        "{out}"
    );
    assert!(
        out.contains("void                log(const char *f, ...);"),
        "{out}"
    );
    assert!(out.contains("container_of(p,        e, node)"), "{out}");
    assert!(out.contains("\"__init\""), "strings stay: {out}");
    assert_eq!(patch_c("int main(void) { return 0; }\n", true), None);
}

#[test]
fn gnu_ranges_variadic_names_and_macro_definitions_read_as_c() {
    let src = "#define dbg(fmt, args...) printk(fmt, ##args)\nint f(const char *fmt, ...);\nstatic SIMPLE_DEV_PM_OPS(pm, sus, res);\nstatic const DEVICE_ATTR(chip, 0444, show, NULL);\nstatic DEFINE_MUTEX(lock);\nint g(int c) {\n\tswitch (c) {\n\tcase 'a' ... 'z':\n\t\treturn 1;\n\t}\n\treturn 0;\n}\nint t[8] = { [0 ... 7] = 1 };\nDT_MACHINE_START(VF610, \"Vybrid\")\n\t.dt_compat = compat,\nMACHINE_END\n";
    let out = patch_c(src, true).unwrap();
    assert_eq!(out.len(), src.len());
    assert!(out.contains("#define dbg(fmt, args   ) printk"), "{out}");
    assert!(out.contains("int f(const char *fmt, ...);"), "{out}");
    assert!(
        !out.contains("SIMPLE_DEV_PM_OPS") && !out.contains("DEVICE_ATTR"),
        "{out}"
    );
    assert!(out.contains("static int          lock ;"), "{out}");
    assert!(out.contains("case 'a'  +  'z':"), "{out}");
    let tlv = patch_c(
        "static const DECLARE_TLV_DB_SCALE(gain, -6375, 25, 0);\n",
        true,
    )
    .unwrap();
    assert_eq!(
        tlv,
        "static const int                  gain               ;\n"
    );
    assert!(out.contains("[0  +  7] = 1"), "{out}");
    assert!(out.contains("int              VF610=         {"), "{out}");
    assert!(out.contains("\n};         \n"), "{out}");
    let a = crate::analyze_file("m.c", src, &crate::ChunkOptions::default());
    assert_eq!(a.parse_error, None);
    let names: Vec<&str> = a.facts.symbols.iter().map(|s| s.name.as_str()).collect();
    assert!(names.contains(&"g") && names.contains(&"dbg"), "{names:?}");
    // A type as a whole argument of any macro; a pointer type or a cast stays.
    let src = "asmlinkage void noinstr h(void)\n{\n\tx = lwq_dequeue(q, struct svc_xprt, ready);\n\ty = (struct a *)p;\n\tz = f(p, struct b *);\n}\n";
    let out = patch_c(src, true).unwrap();
    assert_eq!(out.len(), src.len());
    assert!(
        out.contains("lwq_dequeue(q,        svc_xprt, ready)"),
        "{out}"
    );
    assert!(
        out.contains("(struct a *)p") && out.contains("f(p, struct b *)"),
        "{out}"
    );
    assert!(out.starts_with("           void         h(void)"), "{out}");
    let map = patch_c(
        "struct {\n\t__uint(max_entries, 16);\n\t__type(key, u32);\n} m SEC(\".maps\");\n",
        true,
    )
    .unwrap();
    assert_eq!(
        map,
        "struct {\n\tint    max_entries     ;\n\tint    key      ;\n} m             ;\n"
    );
    let out = patch_c(
        "STATIC int\nf(void) { static char v[8] __attribute__((aligned(8))); return 0; }\n",
        true,
    )
    .unwrap();
    assert_eq!(
        out,
        "       int\nf(void) { static char v[8]                            ; return 0; }\n"
    );
    let pm = "static const struct dev_pm_ops p = {\n\tSET_SYSTEM_SLEEP_PM_OPS(s, r)\n\tSET_RUNTIME_PM_OPS(a, b, NULL)\n};\n";
    let out = patch_c(pm, true).unwrap();
    assert_eq!(out.len(), pm.len());
    assert!(out.contains("\t_(s, r),  "), "{out}");
    assert!(
        out.contains("\tSET_RUNTIME_PM_OPS(a, b, NULL)\n};"),
        "{out}"
    );
    let a = crate::analyze_file("pm.c", pm, &crate::ChunkOptions::default());
    assert_eq!(a.parse_error, None);
    let trace = "#define A(x) \\\n\t(x)\n\nTRACE_EVENT(x,\n\tTP_PROTO(void *b, size_t n),\n\tTP_STRUCT__entry(\n\t\t__field(unsigned int, len)\n\t),\n\tTP_printk(\"%d\", 1)\n);\nint after(void);\n";
    let out = patch_c(trace, true).unwrap();
    assert_eq!(out.len(), trace.len());
    assert!(out.starts_with("#define A(x) \\\n\t(x)\n\n "), "{out}");
    assert!(
        out[20..].trim_start().starts_with("int after(void);"),
        "{out}"
    );
    let src = "static int __init m(void)\n{\n\treturn 0;\n}\nmodule_init(m)\nmodule_exit(m);\nMODULE_LICENSE(\"GPL\");\nSEC(\"tc\") __success __retval(0) int p(void) { return 0; }\n";
    let out = patch_c(src, true).unwrap();
    assert_eq!(out.len(), src.len());
    assert!(out.contains("}\n              \nmodule_exit(m);"), "{out}");
    let a = crate::analyze_file("m.c", src, &crate::ChunkOptions::default());
    assert_eq!(a.parse_error, None);
    let names: Vec<&str> = a.facts.symbols.iter().map(|s| s.name.as_str()).collect();
    assert!(names.contains(&"m") && names.contains(&"p"), "{names:?}");
}

/// Any mix of the macros, brackets, quotes, comments and non-ASCII text: no panic, and
/// the patch keeps every byte offset and line.
#[test]
fn any_text_keeps_its_length_and_lines() {
    let parts = [
        "__init ",
        "__printf(",
        "list_for_each_entry(",
        "DEFINE_PER_CPU(",
        "SYSCALL_DEFINE2(",
        "container_of(",
        "min_t(",
        "DEFINE_MUTEX(",
        "struct ",
        "(",
        ")",
        ",",
        "{",
        "}",
        ";",
        "\"",
        "'",
        "/*",
        "*/",
        "//",
        "\n",
        "#ifdef X\n",
        "é",
        " ",
        "x",
        "unsigned int",
        "...",
        "case ",
        "[",
        "]",
        "#define d(a",
        "static ",
        "SIMPLE_DEV_PM_OPS(",
        "DT_MACHINE_START(",
        "MACHINE_END",
        "#if 0\n",
        "#else\n",
        "#elif Y\n",
        "#endif\n",
        "#define Z \\\n",
        "offsetof(",
        "DECLARE_SOCKADDR(",
        "INDIRECT_CALLABLE_DECLARE(",
        "skb_walk(",
        "static_assert(",
        "KERN_ERR ",
        "__stringify(",
        "x asm(",
        "struct_group(",
        "asm volatile(",
        "LIBBPF_OPTS(",
        "u32 : ",
        ".macro m\n",
        ".endm\n",
        "DEFINE_PER_CPU(long[4], ",
        "\\\n",
    ];
    let mut seed: u64 = 7;
    for _ in 0..2000 {
        let mut text = String::new();
        for _ in 0..40 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            text.push_str(parts[(seed >> 33) as usize % parts.len()]);
        }
        for out in [true, false]
            .into_iter()
            .filter_map(|every| patch_c(&text, every))
        {
            assert_eq!(out.len(), text.len(), "{text:?}");
            assert_eq!(
                out.matches('\n').count(),
                text.matches('\n').count(),
                "{text:?}"
            );
        }
    }
}

#[test]
fn conditionals_inside_code_read_as_every_branch_or_the_first() {
    let src = "#ifdef A\nint x;\n#else\nlong x;\n#endif\nvoid f(int af)\n{\n\tif (af == 4)\n\t\tg();\n#if IS_ENABLED(CONFIG_IPV6)\n\telse if (af == 6)\n\t\th();\n#endif\n#if 0\n\tjunk here\n#else\n\tk();\n#endif\n}\n";
    let every = patch_c(src, true).unwrap();
    let first = patch_c(src, false).unwrap();
    for out in [&every, &first] {
        assert_eq!(out.len(), src.len());
        assert_eq!(out.lines().count(), src.lines().count());
        // Between declarations: left to the grammar.
        assert!(
            out.starts_with("#ifdef A\nint x;\n#else\nlong x;\n#endif\n"),
            "{out}"
        );
        assert!(!out.contains("#if IS_ENABLED"), "{out}");
        assert!(out.contains("\telse if (af == 6)"), "{out}");
    }
    assert!(
        every.contains("\tjunk here") && every.contains("\tk();"),
        "{every}"
    );
    assert!(
        !first.contains("junk") && first.contains("\tk();"),
        "{first}"
    );
    // `#if 0` kept its junk in `every`: the first branch alone reads whole, and so the
    // file does.
    let opts = crate::ChunkOptions::default();
    assert!(
        crate::analyze_file("f.c", &every, &opts)
            .parse_error
            .is_some()
    );
    assert!(
        crate::analyze_file("f.c", &first, &opts)
            .parse_error
            .is_none()
    );
    let a = crate::analyze_file("f.c", src, &opts);
    assert!(a.parse_error.is_none(), "{:?}", a.parse_error);
    assert!(a.chunks.iter().any(|c| c.symbol.as_deref() == Some("f")));

    // A function's two heads under `#ifdef` open one body: what follows is between
    // declarations still, and `#else` there keeps its branch.
    let heads = "#ifdef X\nvoid f(int a) {\n#else\nvoid f(long a) {\n#endif\n\tg();\n}\n#ifdef Y\nint y;\n#else\nint z;\n#endif\n";
    let out = patch_c(heads, false);
    assert!(
        out.as_ref().is_none_or(|o| o.contains("#else\nint z;")),
        "{out:?}"
    );
    // An expression across a conditional (`#ifdef` inside a condition).
    let cond = "int f(void)\n{\n\tif (a\n#ifdef X\n\t    && b\n#endif\n\t    )\n\t\treturn 1;\n\treturn 0;\n}\n";
    let out = patch_c(cond, false).unwrap();
    assert!(out.contains("\tif (a\n        \n\t    && b\n"), "{out}");
}

#[test]
fn declarations_behind_macros_read_as_c() {
    let src = "void f(void)\n{\n\tDECLARE_SOCKADDR(struct sockaddr_in *, sin, uaddr);\n\tskb_list_walk_safe(segs, segs, nskb) {\n\t\tn++;\n\t}\n\tswitch (x) {\n\t}\n\tx = offsetof(struct s, a.b);\n\tunsafe_memcpy(d, s, n,\n\t\t/* why */);\n\ts.u.__unused = 0;\n}\nINDIRECT_CALLABLE_DECLARE(int udp_rcv(struct sk_buff *));\nstatic_assert(X <= 32);\n";
    let out = patched(src);
    assert!(
        out.contains("\t                 struct sockaddr_in *  sin        "),
        "{out}"
    );
    assert!(
        out.contains("\twhile             (segs, segs, nskb) {"),
        "{out}"
    );
    assert!(out.contains("\tswitch (x) {"), "{out}");
    assert!(out.contains("offseto_("), "{out}");
    assert!(out.contains("d, s, n \n"), "{out}");
    assert!(out.contains("s.u.__unused = 0;"), "{out}");
    assert!(out.contains("int udp_rcv(struct sk_buff *) ;"), "{out}");
    assert!(!out.contains("static_assert"), "{out}");
    assert_reads_whole("f.c", src);
}

#[test]
fn x_macros_operator_arguments_and_labelled_loops_read_as_c() {
    let src = "enum bch_watermark {\n#define x(name)\tBCH_WATERMARK_##name,\n\tBCH_WATERMARKS()\n#undef x\n\tBCH_WATERMARK_NR,\n};\nvoid f(void)\n{\n#define LOCAL 1\n\tASSERTCMP(r, ==, 0);\nfail:\n\tfor_each_possible_cpu(cpu) {\n\t\tput(cpu);\n\t}\n}\nstatic nokprobe_inline int g(void) { return LOCAL; }\n";
    let out = patched(src);
    // In a list the definition and the list macro go; in a body the definition stays.
    assert!(
        !out.contains("#define x") && !out.contains("#undef"),
        "{out}"
    );
    assert!(!out.contains("BCH_WATERMARKS()"), "{out}");
    assert!(out.contains("#define LOCAL 1"), "{out}");
    assert!(out.contains("ASSERTCMP(r, _ , 0);"), "{out}");
    assert!(
        out.contains("fail:\n\twhile                (cpu) {"),
        "{out}"
    );
    assert!(out.contains("static                 int g(void)"), "{out}");
    assert_reads_whole("f.c", src);
}

#[test]
fn strings_joined_with_macros_register_variables_and_field_groups_read_as_c() {
    let src = "#define DRV_NAME \"x\"\nstruct s {\n\tstruct_group(hdr,\n\t\tint a;\n\t\tint b;\n\t);\n\tint c;\n};\nvoid f(void)\n{\n\tregister long r0 asm(\"r0\") = 1;\n\tprintk(KERN_ERR DRV_NAME \": failed %d\\n\", L\"w\");\n\tdesc(\"max \" __stringify(SG_MAX) \")\");\n}\n";
    let out = patched(src);
    // A definition's body is the preprocessor's.
    assert!(out.starts_with("#define DRV_NAME \"x\"\n"), "{out}");
    let group = format!("\t{}\n\t\tint a;\n\t\tint b;\n\t  \n", " ".repeat(17));
    assert!(out.contains(&group), "{out}");
    assert!(out.contains("register long r0           = 1;"), "{out}");
    assert!(
        out.contains("printk(                  \": failed %d\\n\", L\"w\");"),
        "{out}"
    );
    let joined = format!(
        "desc(\"max \"{}\")\");",
        " ".repeat(" __stringify(SG_MAX) ".len())
    );
    assert!(out.contains(&joined), "{out}");
    assert_reads_whole("f.c", src);
}

#[test]
fn declarations_without_semicolons_assembly_and_definitions_with_comments_read_as_c() {
    let src = "#define PIN(id) \\\n\t{ /* gpio */ \\\n\t\t.id = id, \\\n\t}\n#ifdef __ASSEMBLY__\n.macro kuap_check gpr\n.endm\n#else\nint c_only;\n#endif /* __ASSEMBLY__ */\nstatic DEF_SCSI_QCMD(mesh_queue)\n\nIRQCHIP_MATCH(\"fsl,mu\", init)\nIRQCHIP_PLATFORM_DRIVER_END(mu)\nDECLARE_MSM_GPIO_PINS(0);\nstatic const struct d dfs[] = {\n\tDEFINE_RCG_DFS(clk),\n};\ndefine_machine(board) {\n\t.name = \"board\",\n};\nint last;\n";
    let out = patched(src);
    assert!(
        out.starts_with("#define PIN(id) \\\n\t{            \\\n"),
        "{out}"
    );
    assert!(
        !out.contains(".macro") && out.contains("int c_only;"),
        "{out}"
    );
    assert!(
        !out.contains("DEF_SCSI_QCMD") && !out.contains("IRQCHIP"),
        "{out}"
    );
    assert!(!out.contains("DECLARE_MSM_GPIO_PINS"), "{out}");
    assert!(out.contains("\tDEFINE_RCG_DFS(clk),"), "{out}");
    assert!(out.contains("int            board= {"), "{out}");
    assert_reads_whole("f.c", src);
}

#[test]
fn inline_assembly_and_option_structs_read_as_c() {
    let src = "__naked void f(void)\n{\n\tasm volatile (\"r0 = 0;\" \"exit;\" :: __imm(bpf_get_stack) : __clobber_all);\n}\nvoid g(void)\n{\n\tLIBBPF_OPTS(bpf_tc_hook, hook, .attach_point = BPF_TC_EGRESS);\n\tLIBBPF_OPTS(bpf_tc_opts, opts);\n\tuse(&hook, &opts);\n}\n";
    let out = patched(src);
    assert!(!out.contains("asm") && !out.contains("__imm"), "{out}");
    assert!(
        out.contains("bpf_tc_hook  hook={.attach_point = BPF_TC_EGRESS};"),
        "{out}"
    );
    assert!(out.contains("bpf_tc_opts  opts ;"), "{out}");
    assert_reads_whole("f.c", src);
}

#[test]
fn unnamed_bit_fields_read_with_a_name() {
    let src = "struct s {\n\tu32\t\t: 14;\n\tunsigned int a : 2;\n\tunsigned long : 2;\n};\nint f(int x) { switch (x) { case A : return 1; } return x ? 1 : 2; }\n";
    let out = patched(src);
    assert!(
        out.contains("\tu32\t_: 14;\n\tunsigned int a : 2;\n\tunsigned long_: 2;"),
        "{out}"
    );
    assert!(
        out.contains("case A : return 1;") && out.contains("x ? 1 : 2"),
        "{out}"
    );
}

#[test]
fn statements_given_to_macros_become_blanks() {
    let src = "int f(int r)\n{\n\tPP_ASSERT_WITH_CODE((0 == r), \"failed\", return r;);\n\tif (nvkm_msec(dev, 2000,\n\t\tif (done(d))\n\t\t\tbreak;\n\t) < 0)\n\t\treturn -1;\n\tIF_ABR(printk(\"x\");)\n\tfor (r = 0; r < 2; r++)\n\t\tg(({ int t = r; t; }), \"a;b\");\n\treturn 0;\n}\n";
    let out = patched(src);
    assert!(
        out.contains("PP_ASSERT_WITH_CODE((0 == r), \"failed\"           );"),
        "{out}"
    );
    assert!(out.contains("nvkm_msec(dev, 2000 \n"), "{out}");
    // On its own line, the whole call goes (an X-macro's list reads so too).
    assert!(!out.contains("IF_ABR"), "{out}");
    assert!(
        out.contains("for (r = 0; r < 2; r++)\n\t\tg(({ int t = r; t; }), \"a;b\");"),
        "{out}"
    );
    assert_reads_whole("f.c", src);
}

#[test]
fn assembler_macros_and_per_cpu_arrays_read_as_c() {
    let src = ".macro startfn name:req\n\t.globl \\name\n\\name:\n.endm\n.irp n,0,1,2\n.endr\nstatic DEFINE_PER_CPU(unsigned long[4], mask);\nstatic const struct ops o = {\n\t.name = \"x\",\n};\n";
    let out = patched(src);
    assert!(out.trim_start().starts_with("static"), "{out}");
    assert!(
        out.contains("static                unsigned long     mask ;"),
        "{out}"
    );
    assert!(out.contains("\t.name = \"x\","), "{out}");
    assert_reads_whole("f.h", src);
}
