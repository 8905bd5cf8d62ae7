//! Writes a batch as a cargo crate, builds it and runs it. Every batch reuses one crate
//! directory and one target directory, so `ad` and num-dual are built once per machine.

use crate::ast::Func;
use crate::harness;
use std::path::{Path, PathBuf};
use std::process::Command;

pub struct Runner {
    /// Where the generated crates, their shared target directory (`build/`) and the shrunk
    /// programs go: `target/progen` of the workspace unless told otherwise.
    pub dir: PathBuf,
    /// The workspace, for the path of `ad` and its `Cargo.lock`.
    root: PathBuf,
    release: bool,
    /// Told apart by seed, so that runs of several seeds can share the target directory.
    tag: String,
}

/// What `main` of a batch printed about one function.
pub struct Result {
    pub name: String,
    pub finished: bool,
    pub failures: usize,
    pub points: usize,
    pub skipped: usize,
    /// Its `MISMATCH` and `PANICKED` lines.
    pub lines: Vec<String>,
}

impl Result {
    pub fn ok(&self) -> bool {
        self.finished && self.failures == 0
    }
}

pub struct Outcome {
    pub results: Vec<Result>,
}

impl Runner {
    pub fn new(dir: PathBuf, root: PathBuf, release: bool, seed: u64) -> Runner {
        Runner {
            dir,
            root,
            release,
            tag: format!("s{seed}"),
        }
    }

    fn root(&self) -> PathBuf {
        self.root.clone()
    }

    /// Writes the crate `name` under `target/progen/` with `main.rs` = `source`.
    pub fn write(&self, name: &str, source: &str) -> std::io::Result<PathBuf> {
        let dir = self.dir.join(name);
        std::fs::create_dir_all(dir.join("src"))?;
        let root = self.root().canonicalize()?;
        let manifest = format!(
            "[package]\nname = \"progen-{name}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\nad = {{ path = {:?} }}\nnum-dual = {{ version = \"0.15\", default-features = false }}\nnum-traits = \"0.2\"\n\n\
             [profile.dev]\ndebug = false\n\n[workspace]\n",
            root.display().to_string()
        );
        write_if_changed(&dir.join("Cargo.toml"), &manifest)?;
        if !dir.join("Cargo.lock").exists() {
            // The workspace's versions of ad's dependencies and of num-dual.
            let _ = std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock"));
        }
        write_if_changed(&dir.join("src").join("main.rs"), source)?;
        Ok(dir)
    }

    /// Builds and runs the crate in `dir`; `only` runs one function's checks.
    pub fn build_and_run(
        &self,
        dir: &Path,
        only: Option<&str>,
    ) -> std::result::Result<String, String> {
        let target = self.dir.join("build");
        let mut build = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        build
            .arg("build")
            .arg("--quiet")
            .current_dir(dir)
            .env("CARGO_TARGET_DIR", &target);
        if self.release {
            build.arg("--release");
        }
        let out = build
            .output()
            .map_err(|e| format!("cannot run cargo: {e}"))?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).into_owned());
        }
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let exe = target
            .join(if self.release { "release" } else { "debug" })
            .join(format!("progen-{name}"));
        let mut run = Command::new(exe);
        if let Some(o) = only {
            run.arg(o);
        }
        let out = run
            .output()
            .map_err(|e| format!("cannot run the batch: {e}"))?;
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    pub fn check(
        &self,
        funcs: &[Func],
        seed: u64,
        points: usize,
        only: Option<&str>,
    ) -> std::result::Result<Outcome, String> {
        self.check_in("batch", funcs, seed, points, only)
    }

    pub fn check_in(
        &self,
        crate_name: &str,
        funcs: &[Func],
        seed: u64,
        points: usize,
        only: Option<&str>,
    ) -> std::result::Result<Outcome, String> {
        let source = harness::source(funcs, seed, points);
        let name = format!("{crate_name}-{}", self.tag);
        let dir = self.write(&name, &source).map_err(|e| e.to_string())?;
        let stdout = self.build_and_run(&dir, only)?;
        Ok(parse(&stdout, funcs, only))
    }
}

/// The text of the crate `crate_name` as last written.
impl Runner {
    pub fn source_of(&self, crate_name: &str) -> String {
        let path = self
            .dir
            .join(format!("{crate_name}-{}", self.tag))
            .join("src")
            .join("main.rs");
        std::fs::read_to_string(path).unwrap_or_default()
    }
}

/// The first error of a build and the generated function it points into; and, for an error
/// at the attribute of an `impl` block, the methods in the block.
pub fn first_error(stderr: &str, source: &str) -> Option<(String, String, Vec<String>)> {
    let mut lines = stderr.lines();
    let message = lines
        .by_ref()
        .find(|l| l.starts_with("error"))?
        .split_once(": ")?
        .1
        .to_string();
    let at = lines.find_map(|l| l.trim().strip_prefix("--> src/main.rs:"))?;
    let line: usize = at.split(':').next()?.parse().ok()?;
    let lines: Vec<&str> = source.lines().collect();
    let fn_name = |l: &str| -> Option<String> {
        let l = l.trim();
        let rest = l
            .strip_prefix("pub fn ")
            .or_else(|| l.strip_prefix("fn "))?;
        let name = rest.split(['(', '<']).next()?;
        let name = name.strip_prefix("check_").unwrap_or(name);
        // A rule's error is its function's.
        let name = ["_forward", "_reverse", "_augmented"]
            .iter()
            .fold(name, |n, s| n.strip_suffix(s).unwrap_or(n));
        Some(name.to_string())
    };
    // An error the macro reports on its attribute belongs to the function below it.
    // So does one on the `impl` block of a method.
    let at_attribute = lines
        .get(line - 1)
        .is_some_and(|l| l.trim().starts_with("#[") || l.trim().starts_with("impl "));
    let name = if at_attribute {
        lines[line - 1..].iter().find_map(|l| fn_name(l))?
    } else {
        lines[..line].iter().rev().find_map(|l| fn_name(l))?
    };
    let mut block = Vec::new();
    if at_attribute
        && let Some(start) = lines[line - 1..]
            .iter()
            .position(|l| l.starts_with("impl "))
    {
        for l in &lines[line - 1 + start + 1..] {
            if l.starts_with('}') {
                break;
            }
            if l.starts_with("    pub fn ")
                && let Some(n) = fn_name(l)
            {
                block.push(n);
            }
        }
    }
    name.starts_with("f_").then_some((message, name, block))
}

fn write_if_changed(path: &Path, text: &str) -> std::io::Result<()> {
    if std::fs::read_to_string(path).ok().as_deref() == Some(text) {
        return Ok(());
    }
    std::fs::write(path, text)
}

/// One `Result` per function asked for; a function whose `PROGRAM` line is missing (the
/// process died) did not finish.
fn parse(stdout: &str, funcs: &[Func], only: Option<&str>) -> Outcome {
    let mut results: Vec<Result> = funcs
        .iter()
        .filter(|f| only.is_none_or(|o| o == f.name) && !f.takes_fn())
        .map(|f| Result {
            name: f.name.clone(),
            finished: false,
            failures: 0,
            points: 0,
            skipped: 0,
            lines: Vec::new(),
        })
        .collect();
    let mut pending: Vec<String> = Vec::new();
    for line in stdout.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.first() {
            Some(&"PROGRAM") if words.len() == 6 => {
                if let Some(r) = results.iter_mut().find(|r| r.name == words[1]) {
                    r.finished = words[2] == "1";
                    r.failures = words[3].parse().unwrap_or(1);
                    r.points = words[4].parse().unwrap_or(0);
                    r.skipped = words[5].parse().unwrap_or(0);
                    r.lines.append(&mut pending);
                }
            }
            Some(&"MISMATCH") | Some(&"PANICKED") => pending.push(line.to_string()),
            _ => {}
        }
    }
    if !pending.is_empty()
        && let Some(r) = results.iter_mut().find(|r| !r.finished)
    {
        r.lines.append(&mut pending);
    }
    Outcome { results }
}
