//! Robustness of kernel mode's readers (`docs/cli/kernel.md`): random byte
//! mutations of the corpus kernels' launch files and `.ptx` modules never
//! panic, and every rejection is one line that names the launch file or the
//! module with a line and a column inside it. Deterministic (a fixed seed per
//! file), and fast: a few thousand parses (`PTXMC_FUZZ_ROUNDS=N` runs `N`
//! mutations of each reader per file instead of 100).

use ptxmc_frontend::kernel::parse_launch;
use std::path::Path;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Bytes that the readers give meaning to, and some they do not.
const SPECIAL: &[u8] = b"{}[]();:,.+-%@!|=/*\"\n\t 0123456789xyz_$\\~#\x00\xff";

/// One random edit of `src`: replace, insert, delete a run, duplicate a run,
/// or truncate.
fn mutate(src: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut v = src.to_vec();
    let edits = 1 + rng.below(3);
    for _ in 0..edits {
        let at = rng.below(v.len() + 1);
        let byte = if rng.below(4) == 0 {
            rng.next() as u8
        } else {
            SPECIAL[rng.below(SPECIAL.len())]
        };
        match rng.below(5) {
            0 if at < v.len() => v[at] = byte,
            1 => v.insert(at, byte),
            2 if at < v.len() => {
                let end = (at + 1 + rng.below(16)).min(v.len());
                v.drain(at..end);
            }
            3 if at < v.len() => {
                let end = (at + 1 + rng.below(40)).min(v.len());
                let run: Vec<u8> = v[at..end].to_vec();
                let to = rng.below(v.len() + 1);
                v.splice(to..to, run);
            }
            _ => v.truncate(at),
        }
    }
    v
}

/// `FILE:LINE:COL: reason`, with `FILE` one of `files` (name, line count),
/// the position inside it, and the reason on one line.
fn check_error(msg: &str, files: &[(&str, usize)], what: &str) {
    assert!(!msg.contains('\n'), "{what}: a multi-line error: {msg:?}");
    let ok = files.iter().any(|(name, lines)| {
        let Some(rest) = msg.strip_prefix(&format!("{name}:")) else {
            return false;
        };
        let mut it = rest.splitn(3, ':');
        let line = it.next().and_then(|l| l.parse::<usize>().ok());
        let col = it.next().and_then(|c| c.parse::<usize>().ok());
        let reason = it.next().unwrap_or("").trim();
        matches!((line, col), (Some(l), Some(c)) if l >= 1 && l <= lines + 1 && c >= 1)
            && !reason.is_empty()
    });
    assert!(ok, "{what}: not `file:line:col: reason`: {msg:?}");
}

fn lines(s: &str) -> usize {
    s.lines().count().max(1)
}

#[test]
fn mutated_launches_and_modules_never_panic_and_errors_have_positions() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/kernels");
    let mut launches: Vec<_> = std::fs::read_dir(&dir)
        .expect("corpus/kernels")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "launch"))
        .collect();
    launches.sort();
    assert!(launches.len() >= 10, "{launches:?}");
    // `PTXMC_FUZZ_ROUNDS=N` for a longer run (mutations per file and reader).
    let per_file: usize = std::env::var("PTXMC_FUZZ_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let (mut parsed, mut rejected) = (0usize, 0usize);
    for (k, path) in launches.iter().enumerate() {
        let launch = std::fs::read_to_string(path).expect("launch");
        let module_name = launch
            .lines()
            .find_map(|l| l.strip_prefix("module "))
            .map(|m| m.split("//").next().unwrap_or(m).trim().to_string())
            .expect("the launch names its module");
        let module = std::fs::read_to_string(dir.join(&module_name)).expect("module");
        let launch_name = path.file_name().and_then(|n| n.to_str()).expect("name");
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (k as u64 + 1).wrapping_mul(0x1234_5678_9abc));
        for i in 0..2 * per_file {
            // Even rounds mutate the module, odd ones the launch.
            let (l_src, m_src) = if i % 2 == 0 {
                let m = mutate(module.as_bytes(), &mut rng);
                (launch.clone(), String::from_utf8_lossy(&m).into_owned())
            } else {
                let l = mutate(launch.as_bytes(), &mut rng);
                (String::from_utf8_lossy(&l).into_owned(), module.clone())
            };
            let read = |m: &str| {
                if m == module_name {
                    Ok(m_src.clone())
                } else {
                    Err("no such file".to_string())
                }
            };
            let what = format!("{launch_name} mutation {i}");
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                parse_launch(&l_src, launch_name, &read)
            }));
            match result {
                Err(_) => panic!("{what} panicked; launch:\n{l_src}\nmodule:\n{m_src}"),
                Ok(Ok(_)) => parsed += 1,
                Ok(Err(e)) => {
                    rejected += 1;
                    check_error(
                        &e.to_string(),
                        &[(launch_name, lines(&l_src)), (&module_name, lines(&m_src))],
                        &what,
                    );
                }
            }
        }
    }
    // The mutations exercise both outcomes.
    assert!(
        rejected > 100 && parsed > 100,
        "{rejected} rejected, {parsed} parsed"
    );
}
