//! A seeded generator of small random litmus tests in the corpus dialect
//! (`../shared/conformance/dat3m-ptx/DIALECT.md`), for differential testing of
//! the explorers. Deterministic: the same seed always gives the same text.
//!
//! What a program may contain:
//! - 2–4 threads of 1–4 instructions each (plus the labels, barriers and loop
//!   instructions added below), placed all in one CTA, each in its own CTA, or
//!   a random mix of CTAs and GPUs;
//! - 1–3 locations (`x`, `y`, `z`), sometimes a non-zero initial value, a
//!   generic alias `a @ generic aliases x` and a surface alias
//!   `s @ surface aliases x|y`;
//! - `ld.weak`, `ld.{relaxed,acquire}.{cta,gpu,sys}`, `st.weak`,
//!   `st.{relaxed,release}.{scope}` of a constant or of a register loaded
//!   before (a data dependency), `atom.{relaxed,acquire,release,acq_rel}.
//!   {scope}.{add,exch,cas}`, `red.{relaxed,release}.{scope}.add`,
//!   `fence.{sc,acq_rel}.{scope}`, `fence.proxy.alias`, `fence.proxy.surface`,
//!   `sust.weak` / `suld.weak` through the surface alias;
//! - forward branches `bne|beq r, V, LCtk` to a label later in the thread,
//!   sometimes a forward `goto`, and register arithmetic
//!   (`add|sub|mul r, r', V`) that carries data dependencies;
//! - in about one program in ten, `bar.cta.sync N` in several threads of one
//!   CTA (sometimes with an id and a thread count, or an id in a register;
//!   sometimes one `bar.cta.arrive`);
//! - in about 3 programs in 100, a backward loop: a side-effect-free spin
//!   loop `LC: ld r, x; bne r, 1, LC`, or a CAS lock loop (which has a write,
//!   so it is unrolled up to the bound);
//! - under [`Profile::LOCAL`], a `.local` location `l @ local = V` (one copy
//!   per thread, PTX ISA 5.1.5) with 1–4 `st.local`/`ld.local` accesses at
//!   random places;
//! - a final condition `exists` / `~exists` / `forall` over 1–3 atoms on
//!   registers and memory, with `/\`, `\/` and `~`; sometimes a
//!   `locations [...]` list or a `filter`.

#![allow(dead_code)]

pub mod compare;
pub mod locks;

use std::fmt::Write;

/// xorshift64* seeded through splitmix64: tiny, deterministic, no dependency.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed` (any value, zero included).
    pub fn new(seed: u64) -> Self {
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        Rng(if z == 0 { 0x2545_F491_4F6C_DD1D } else { z })
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`n > 0`; 0 when `n == 0`).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() >> 11) as usize % n
        }
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `pct` percent.
    pub fn chance(&mut self, pct: usize) -> bool {
        self.below(100) < pct
    }

    /// One element of a non-empty slice.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

const SCOPES: &[&str] = &["cta", "gpu", "sys"];
const LOCS: &[&str] = &["x", "y", "z"];

/// One cell of a thread column: an instruction or a label.
#[derive(Clone, Debug)]
enum Cell {
    Instr(String),
    Label(String),
}

/// A thread being generated.
#[derive(Clone, Debug)]
struct Thread {
    cta: usize,
    gpu: usize,
    cells: Vec<Cell>,
    /// Registers written so far (usable as data and in the condition).
    loaded: Vec<usize>,
    next_reg: usize,
    next_label: usize,
}

impl Thread {
    fn fresh_reg(&mut self) -> usize {
        let r = self.next_reg;
        self.next_reg += 1;
        self.loaded.push(r);
        r
    }
}

/// The shape of a program's memory.
struct Mem {
    locs: usize,
    /// `a @ generic aliases x`.
    generic_alias: bool,
    /// `s @ surface aliases <loc>`.
    surface_of: Option<&'static str>,
}

impl Mem {
    /// An address for a generic access: a location or the generic alias.
    fn addr(&self, rng: &mut Rng) -> &'static str {
        if self.generic_alias && rng.chance(25) {
            "a"
        } else {
            LOCS[rng.below(self.locs)]
        }
    }
}

/// A value to store: a small constant, or a register loaded before.
fn value(rng: &mut Rng, th: &Thread) -> String {
    if !th.loaded.is_empty() && rng.chance(30) {
        format!("r{}", th.loaded[rng.below(th.loaded.len())])
    } else {
        rng.range(1, 3).to_string()
    }
}

fn strong_sem(rng: &mut Rng, sems: &[&'static str]) -> String {
    format!("{}.{}", rng.pick(sems), rng.pick(SCOPES))
}

/// One random memory instruction, fence or surface access of `th`.
fn instruction(rng: &mut Rng, mem: &Mem, th: &mut Thread) -> String {
    loop {
        let k = rng.below(100);
        match k {
            // Loads.
            0..=24 => {
                let addr = mem.addr(rng);
                let op = if rng.chance(25) {
                    "ld.weak".to_string()
                } else {
                    format!("ld.{}", strong_sem(rng, &["relaxed", "acquire"]))
                };
                let r = th.fresh_reg();
                return format!("{op} r{r}, {addr}");
            }
            // Stores.
            25..=49 => {
                let addr = mem.addr(rng);
                let v = value(rng, th);
                let op = if rng.chance(25) {
                    "st.weak".to_string()
                } else {
                    format!("st.{}", strong_sem(rng, &["relaxed", "release"]))
                };
                return format!("{op} {addr}, {v}");
            }
            // Atomics.
            50..=62 => {
                let addr = mem.addr(rng);
                let sem = strong_sem(rng, &["relaxed", "acquire", "release", "acq_rel"]);
                let op = rng.pick(&["add", "exch", "cas"]);
                let operands = if op == "cas" {
                    let expected = rng.range(0, 2);
                    let new = value(rng, th);
                    format!("{expected}, {new}")
                } else {
                    value(rng, th)
                };
                let r = th.fresh_reg();
                return format!("atom.{sem}.{op} r{r}, {addr}, {operands}");
            }
            // Reductions.
            63..=68 => {
                let addr = mem.addr(rng);
                let v = value(rng, th);
                let sem = strong_sem(rng, &["relaxed", "release"]);
                return format!("red.{sem}.add {addr}, {v}");
            }
            // Fences.
            69..=80 => {
                return format!("fence.{}", strong_sem(rng, &["sc", "acq_rel"]));
            }
            // Proxy fences.
            81..=86 if mem.generic_alias || mem.surface_of.is_some() => {
                return if mem.surface_of.is_some() && (!mem.generic_alias || rng.chance(50)) {
                    "fence.proxy.surface".to_string()
                } else {
                    "fence.proxy.alias".to_string()
                };
            }
            // Surface accesses.
            87..=99 if mem.surface_of.is_some() => {
                return if rng.chance(50) {
                    let v = value(rng, th);
                    format!("sust.weak s, {v}")
                } else {
                    let r = th.fresh_reg();
                    format!("suld.weak r{r}, s")
                };
            }
            _ => continue,
        }
    }
}

/// The body of one thread: `n` instructions with some forward branches.
fn body(rng: &mut Rng, mem: &Mem, th: &mut Thread, t: usize, n: usize) {
    // labels[i]: labels to place before instruction i (i == n: at the end).
    let mut labels: Vec<Vec<String>> = vec![Vec::new(); n + 1];
    let mut instrs = Vec::new();
    for i in 0..n {
        if i > 0 && !th.loaded.is_empty() && rng.chance(5) {
            // Register arithmetic: a data dependency through a register.
            let a = th.loaded[rng.below(th.loaded.len())];
            let op = rng.pick(&["add", "sub", "mul"]);
            let v = rng.range(1, 2);
            let r = th.fresh_reg();
            instrs.push(format!("{op} r{r}, r{a}, {v}"));
        } else if i + 1 < n && rng.chance(3) {
            let label = format!("LC{t}{}", th.next_label);
            th.next_label += 1;
            let target = rng.range(i + 1, n);
            labels[target].push(label.clone());
            instrs.push(format!("goto {label}"));
        } else if i > 0 && !th.loaded.is_empty() && rng.chance(12) {
            let r = th.loaded[rng.below(th.loaded.len())];
            let label = format!("LC{t}{}", th.next_label);
            th.next_label += 1;
            let target = rng.range(i + 1, n);
            labels[target].push(label.clone());
            let op = rng.pick(&["bne", "beq"]);
            let v = rng.range(0, 2);
            instrs.push(format!("{op} r{r}, {v}, {label}"));
        } else {
            instrs.push(instruction(rng, mem, th));
        }
    }
    for (i, ls) in labels.into_iter().enumerate() {
        th.cells.extend(ls.into_iter().map(Cell::Label));
        if let Some(ins) = instrs.get(i) {
            th.cells.push(Cell::Instr(ins.clone()));
        }
    }
}

/// Adds a backward loop to `th`: a spin loop on a load (side-effect free), or
/// a CAS lock loop (not side-effect free: unrolled).
fn add_loop(rng: &mut Rng, mem: &Mem, th: &mut Thread, t: usize) {
    let label = format!("LC{t}{}", th.next_label);
    th.next_label += 1;
    let loc = LOCS[rng.below(mem.locs)];
    let r = th.fresh_reg();
    let mut cells = vec![Cell::Label(label.clone())];
    if rng.chance(70) {
        let op = if rng.chance(20) {
            "ld.weak".to_string()
        } else {
            format!("ld.{}", strong_sem(rng, &["relaxed", "acquire"]))
        };
        cells.push(Cell::Instr(format!("{op} r{r}, {loc}")));
        cells.push(Cell::Instr(format!("bne r{r}, 1, {label}")));
    } else {
        let sem = strong_sem(rng, &["relaxed", "acquire", "acq_rel"]);
        cells.push(Cell::Instr(format!("atom.{sem}.cas r{r}, {loc}, 0, 1")));
        cells.push(Cell::Instr(format!("bne r{r}, 0, {label}")));
    }
    let at = if rng.chance(50) { 0 } else { th.cells.len() };
    th.cells.splice(at..at, cells);
}

/// Adds `bar.cta.sync N` (or one `bar.cta.arrive N`) to threads of one CTA.
fn add_barriers(rng: &mut Rng, threads: &mut [Thread]) {
    // Mostly a CTA with several threads, when there is one.
    let shared: Vec<usize> = (0..threads.len())
        .filter(|&t| {
            (0..threads.len()).any(|u| {
                u != t && threads[u].cta == threads[t].cta && threads[u].gpu == threads[t].gpu
            })
        })
        .collect();
    let t0 = if !shared.is_empty() && rng.chance(85) {
        shared[rng.below(shared.len())]
    } else {
        rng.below(threads.len())
    };
    let (cta, gpu) = (threads[t0].cta, threads[t0].gpu);
    let group: Vec<usize> = (0..threads.len())
        .filter(|&t| threads[t].cta == cta && threads[t].gpu == gpu)
        .collect();
    let n = rng.range(0, 1);
    // Plain, with an id and a thread count, or with the id in a register
    // loaded before (appended at the end of the thread, after the load).
    let mode = rng.below(100);
    let operands = if mode < 30 {
        let count = rng.range(1, group.len() + 1);
        format!("{n}, 1, {count}")
    } else {
        n.to_string()
    };
    let mut arrive_left = rng.chance(15);
    for &t in &group {
        if t != t0 && rng.chance(15) {
            continue;
        }
        let op = if arrive_left && group.len() > 1 {
            arrive_left = false;
            "arrive"
        } else {
            "sync"
        };
        let th = &mut threads[t];
        if mode >= 88 {
            let id = match th.loaded.as_slice() {
                [] => "1".to_string(),
                regs => format!("r{}", regs[rng.below(regs.len())]),
            };
            th.cells
                .push(Cell::Instr(format!("bar.cta.{op} {n}, {id}")));
            continue;
        }
        let at = rng.below(th.cells.len() + 1);
        th.cells
            .insert(at, Cell::Instr(format!("bar.cta.{op} {operands}")));
    }
}

/// Adds one `bar.red` on barrier 5 (no other barrier of the generator uses
/// id 5) to some threads of one CTA, first or last in each: the predicate is
/// a register loaded before (any value; non-zero is true) or its negation,
/// the result a fresh register; sometimes a thread count equal to the
/// participants, or one more (every participant then hangs).
fn add_bar_red(rng: &mut Rng, threads: &mut [Thread]) {
    let t0 = rng.below(threads.len());
    let (cta, gpu) = (threads[t0].cta, threads[t0].gpu);
    let group: Vec<usize> = (0..threads.len())
        .filter(|&t| threads[t].cta == cta && threads[t].gpu == gpu)
        .filter(|&t| t == t0 || rng.chance(85))
        .collect();
    let (op, ty) = rng.pick(&[("popc", "u32"), ("and", "pred"), ("or", "pred")]);
    let count = match rng.below(100) {
        0..=19 => format!("{}, ", group.len()),
        20..=24 => format!("{}, ", group.len() + 1),
        _ => String::new(),
    };
    for &t in &group {
        let th = &mut threads[t];
        let first = rng.chance(30);
        let pred = match th.loaded.as_slice() {
            regs if !regs.is_empty() && !first => format!("r{}", regs[rng.below(regs.len())]),
            _ => format!("r{}", th.next_reg + 7),
        };
        let neg = if rng.chance(30) { "!" } else { "" };
        let d = th.fresh_reg();
        let cell = Cell::Instr(format!("bar.red.{op}.{ty} r{d}, 5, {count}{neg}{pred}"));
        if first {
            th.cells.insert(0, cell);
        } else {
            th.cells.push(cell);
        }
    }
}

/// An atom of the condition.
fn atom(rng: &mut Rng, mem: &Mem, threads: &[Thread]) -> String {
    let op = if rng.chance(80) { "==" } else { "!=" };
    let with_reg: Vec<usize> = (0..threads.len())
        .filter(|&t| !threads[t].loaded.is_empty())
        .collect();
    if !with_reg.is_empty() && rng.chance(65) {
        let t = with_reg[rng.below(with_reg.len())];
        let r = threads[t].loaded[rng.below(threads[t].loaded.len())];
        let v = rng.range(0, 3);
        format!("P{t}:r{r} {op} {v}")
    } else {
        let loc = LOCS[rng.below(mem.locs)];
        let v = rng.range(0, 3);
        format!("{loc} {op} {v}")
    }
}

/// A proposition of 1–3 atoms.
fn prop(rng: &mut Rng, mem: &Mem, threads: &[Thread]) -> String {
    let n = rng.range(1, 3);
    let mut s = String::new();
    for i in 0..n {
        if i > 0 {
            s.push_str(if rng.chance(65) { " /\\ " } else { " \\/ " });
        }
        let a = atom(rng, mem, threads);
        if rng.chance(10) {
            let _ = write!(s, "~({a})");
        } else {
            s.push_str(&a);
        }
    }
    s
}

/// How often the rarer features appear, in percent of programs.
#[derive(Clone, Debug)]
pub struct Profile {
    /// A backward loop (spin loop or CAS lock loop) in one thread.
    pub loops: usize,
    /// Barriers in the threads of one CTA.
    pub barriers: usize,
    /// A generic alias `a` of `x`.
    pub generic_alias: usize,
    /// A surface alias `s`.
    pub surface_alias: usize,
    /// 3-5 extra `fence.sc.{scope}` at random places (for the Fence-SC
    /// order search, 8.9.3); 0 leaves the other profiles' programs as they were.
    pub fence_sc: usize,
    /// A `bar.red.{popc,and,or}` (8.9.4 item 2) in threads of one CTA; 0
    /// leaves the other profiles' programs as they were.
    pub bar_red: usize,
    /// A `.local` location `l` (one copy per thread, PTX ISA 5.1.5) that
    /// some threads store to and load from with `st.local`/`ld.local`; 0
    /// leaves the other profiles' programs as they were.
    pub local: usize,
}

impl Profile {
    /// The default mix: mostly loop-free, barriers in one program in ten.
    pub const DEFAULT: Profile = Profile {
        loops: 3,
        barriers: 10,
        generic_alias: 12,
        surface_alias: 10,
        fence_sc: 0,
        bar_red: 0,
        local: 0,
    };
    /// The rare features made common, to hunt bugs in them.
    pub const RARE: Profile = Profile {
        loops: 35,
        barriers: 45,
        generic_alias: 35,
        surface_alias: 35,
        fence_sc: 0,
        bar_red: 0,
        local: 0,
    };
    /// The default mix with 3-5 more `fence.sc` in every program.
    pub const FENCE_SC: Profile = Profile {
        loops: 3,
        barriers: 10,
        generic_alias: 12,
        surface_alias: 10,
        fence_sc: 100,
        bar_red: 0,
        local: 0,
    };
    /// The default mix with a `bar.red` in most programs.
    pub const BAR_RED: Profile = Profile {
        loops: 3,
        barriers: 10,
        generic_alias: 12,
        surface_alias: 10,
        fence_sc: 0,
        bar_red: 80,
        local: 0,
    };
    /// The default mix with a `.local` location in most programs.
    pub const LOCAL: Profile = Profile {
        loops: 3,
        barriers: 10,
        generic_alias: 12,
        surface_alias: 10,
        fence_sc: 0,
        bar_red: 0,
        local: 80,
    };
}

/// The litmus text of the program of `seed` under [`Profile::DEFAULT`].
pub fn generate(seed: u64) -> String {
    generate_with(seed, &Profile::DEFAULT)
}

/// The litmus text of the program of `seed` under `profile`.
pub fn generate_with(seed: u64, profile: &Profile) -> String {
    let mut rng = Rng::new(seed);
    let locs = rng.range(1, 3);
    let generic_alias = rng.chance(profile.generic_alias);
    let surface_of = if rng.chance(profile.surface_alias) {
        Some(LOCS[rng.below(locs)])
    } else {
        None
    };
    let mem = Mem {
        locs,
        generic_alias,
        surface_of,
    };
    // Skewed towards small programs: the DPOR explorer's time grows fast
    // with the number of values a thread can write (see the report).
    let n_threads = match rng.below(100) {
        0..=44 => 2,
        45..=79 => 3,
        _ => 4,
    };
    let placement = rng.below(10);
    let mut threads: Vec<Thread> = (0..n_threads)
        .map(|t| {
            let (cta, gpu) = match placement {
                0..=2 => (0, 0),
                3..=5 => (t, 0),
                _ => {
                    let gpu = usize::from(rng.chance(25));
                    (rng.range(0, 1), gpu)
                }
            };
            Thread {
                cta,
                gpu,
                cells: Vec::new(),
                loaded: Vec::new(),
                next_reg: 0,
                next_label: 0,
            }
        })
        .collect();
    for (t, th) in threads.iter_mut().enumerate() {
        let n = match rng.below(100) {
            0..=19 => 1,
            20..=54 => 2,
            55..=84 => 3,
            _ => 4,
        };
        body(&mut rng, &mem, th, t, n);
    }
    if rng.chance(profile.loops) {
        let t = rng.below(n_threads);
        add_loop(&mut rng, &mem, &mut threads[t], t);
    }
    if rng.chance(profile.barriers) {
        add_barriers(&mut rng, &mut threads);
    }
    // Guarded so that profiles without it draw the same numbers as before.
    if profile.fence_sc > 0 && rng.chance(profile.fence_sc) {
        for _ in 0..rng.range(3, 5) {
            let th = &mut threads[rng.below(n_threads)];
            let at = rng.below(th.cells.len() + 1);
            let f = format!("fence.sc.{}", rng.pick(SCOPES));
            th.cells.insert(at, Cell::Instr(f));
        }
    }
    if profile.bar_red > 0 && rng.chance(profile.bar_red) {
        add_bar_red(&mut rng, &mut threads);
    }
    let local = profile.local > 0 && rng.chance(profile.local);
    let local_init = if local {
        add_local(&mut rng, &mut threads);
        rng.range(0, 2)
    } else {
        0
    };

    let mut out = String::new();
    let _ = writeln!(out, "PTX diff-{seed}");
    let _ = writeln!(out, "\"generated by checker/tests/gen (seed {seed})\"");
    out.push_str("{\n");
    for &loc in &LOCS[..locs] {
        let v = if rng.chance(10) { 1 } else { 0 };
        let _ = writeln!(out, "{loc}={v};");
    }
    if local {
        let _ = writeln!(out, "l @ local = {local_init};");
    }
    if mem.generic_alias {
        out.push_str("a @ generic aliases x;\n");
    }
    if let Some(l) = mem.surface_of {
        let _ = writeln!(out, "s @ surface aliases {l};");
    }
    if rng.chance(20) {
        let t = rng.below(n_threads);
        let _ = writeln!(out, "P{t}:r0=0;");
    }
    out.push_str("}\n");

    // Columns, padded to the same width and height.
    let columns: Vec<Vec<String>> = threads
        .iter()
        .enumerate()
        .map(|(t, th)| {
            let mut col = vec![format!("P{t}@cta {},gpu {}", th.cta, th.gpu)];
            col.extend(th.cells.iter().map(|c| match c {
                Cell::Instr(s) => s.clone(),
                Cell::Label(l) => format!("{l}:"),
            }));
            col
        })
        .collect();
    write_columns(&mut out, columns);

    if rng.chance(8) {
        let mut terms: Vec<String> = LOCS[..locs].iter().map(|l| l.to_string()).collect();
        if let Some((t, th)) = threads
            .iter()
            .enumerate()
            .find(|(_, th)| !th.loaded.is_empty())
        {
            terms.push(format!("P{t}:r{}", th.loaded[0]));
        }
        let _ = writeln!(out, "locations [{};]", terms.join("; "));
    }
    if rng.chance(5) {
        let _ = writeln!(out, "filter {}", prop(&mut rng, &mem, &threads));
    }
    let q = match rng.below(10) {
        0..=5 => "exists",
        6..=7 => "~exists",
        _ => "forall",
    };
    let p = prop(&mut rng, &mem, &threads);
    let _ = write!(out, "{q} ({p})");
    if rng.chance(50) {
        out.push('\n');
    }
    out
}

/// Writes the thread columns of a test (each its header first, then its
/// instructions), padded to the same width and height, a row per line.
pub fn write_columns(out: &mut String, mut columns: Vec<Vec<String>>) {
    let height = columns.iter().map(Vec::len).max().unwrap_or(0);
    for c in &mut columns {
        c.resize(height, String::new());
    }
    let widths: Vec<usize> = columns
        .iter()
        .map(|c| c.iter().map(String::len).max().unwrap_or(0))
        .collect();
    for row in 0..height {
        let cells: Vec<String> = columns
            .iter()
            .zip(&widths)
            .map(|(c, &w)| format!(" {:<w$} ", c[row]))
            .collect();
        let _ = writeln!(out, "{};", cells.join("|"));
    }
}

/// 1-4 accesses of the `.local` location `l` at random places of random
/// threads: `st.local` of a value, `ld.local` into a fresh register. Each
/// thread reaches its own copy (PTX ISA 5.1.5), so these never communicate
/// between threads.
fn add_local(rng: &mut Rng, threads: &mut [Thread]) {
    for _ in 0..rng.range(1, 4) {
        let n = threads.len();
        let th = &mut threads[rng.below(n)];
        let at = rng.below(th.cells.len() + 1);
        let sem = match rng.below(3) {
            0 => String::new(),
            _ => format!(".relaxed.{}", rng.pick(SCOPES)),
        };
        let cell = if rng.chance(50) {
            let v = value(rng, th);
            format!("st{sem}.local.u32 [l], {v}")
        } else {
            let r = th.fresh_reg();
            format!("ld{sem}.local.u32 r{r}, [l]")
        };
        th.cells.insert(at, Cell::Instr(cell));
    }
}
