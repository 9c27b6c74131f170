//! Command line: `run`, `install`, `uninstall`, `list`, `prewarm`, `--version`.

use crate::install::{self, InstallOptions, Location};
use anyhow::{bail, Context, Result};
use std::path::PathBuf;

const USAGE: &str = "\
cuprite-kernel: a Jupyter kernel for Rust cells with Cuprite GPU arrays

Usage:
  cuprite-kernel install [--user | --sys-prefix | --prefix DIR] [--name NAME]
                         [--display-name NAME] [--env KEY=VALUE]...
                         [--wrapper SCRIPT [--wrapper-arg ARG]...] [--shared-cache DIR]
                         [--spmd-ranks N [--launcher local|srun|mpirun]]
                     (--spmd-ranks: every cell runs on N ranks, this kernel
                     being rank 0 and starting the others; other ranks' output
                     is shown tagged [rank k] where it differs or fails;
                     `%%rank 0,2` runs a cell on some ranks only)
  cuprite-kernel uninstall [--user | --sys-prefix | --prefix DIR] [--name NAME]
  cuprite-kernel list
  cuprite-kernel prewarm [--shared DIR]
                     (compiles the crates every cell links once, into a folder
                     named after the kernel, the toolchain and CARGO_HOME: the
                     user's own under ~/.cache/cuprite-kernel/prebuilt, or
                     DIR for a site or workshop; new notebooks' build folders
                     start from it; install --shared-cache DIR points kernels at DIR)
  cuprite-kernel run --connection-file FILE    (what Jupyter starts; also `serve`)
  cuprite-kernel run NOTEBOOK.ipynb [--output OUT.ipynb] [--html REPORT.html]
                     [--param NAME=VALUE]...
                     (executes a notebook headless: writes OUT.ipynb, default
                     NOTEBOOK.out.ipynb, with outputs and the environment in
                     metadata.cuprite.environment; --param replaces `let NAME = ...;`
                     in the cell tagged `parameters`; exits 1 naming the first
                     failing cell not tagged `raises-exception`)
  srun cuprite-kernel run --spmd NOTEBOOK.ipynb [...]   (or mpirun, torchrun)
                     (every rank executes the notebook with cp::nccl::world()
                     ready; a cell failing on any rank stops all of them and
                     names the ranks; rank 0 writes the outputs, with the world
                     in metadata.cuprite.environment.spmd)
  cuprite-kernel --version

install without a location writes to the first directory of $JUPYTER_PATH when it
is set, else to the active virtual or conda environment, else to the user's
Jupyter data directory ($JUPYTER_DATA_DIR or ~/.local/share/jupyter).

--wrapper copies SCRIPT into the kernelspec and starts the kernel through it:
kernel.json's argv becomes {resource_dir}/SCRIPT ARG... -- <this kernel> run
--connection-file {connection_file}. kernelspec/cluster/ has wrappers that load
environment modules or run the kernel in an Apptainer image.
";

/// Runs the command line; returns the exit code.
pub fn run(args: Vec<String>) -> Result<i32> {
    let Some(first) = args.first().map(String::as_str) else {
        print!("{USAGE}");
        return Ok(2);
    };
    match first {
        "-h" | "--help" | "help" => {
            print!("{USAGE}");
            Ok(0)
        }
        "-V" | "--version" | "version" => {
            print!("{}", version_text());
            Ok(0)
        }
        "install" => {
            let opts = parse_install(&args[1..])?;
            let dir = install::install(&opts)?;
            println!("Installed kernelspec {} in {}", opts.name, dir.display());
            Ok(0)
        }
        "uninstall" => {
            let (location, name) = parse_uninstall(&args[1..])?;
            let removed = install::uninstall(location.as_ref(), &name)?;
            if removed.is_empty() {
                eprintln!("No kernelspec named {name} was found");
                return Ok(1);
            }
            for d in removed {
                println!("Removed {}", d.display());
            }
            Ok(0)
        }
        "spmd-worker" => crate::spmd_kernel::worker_main(&args[1..]),
        "prewarm" => {
            let args = normalize(&args[1..]);
            let mut shared = None;
            let mut i = 0;
            while i < args.len() {
                match args[i].as_str() {
                    "--shared" => shared = Some(PathBuf::from(value(&args, &mut i, "--shared")?)),
                    other => bail!("prewarm: unknown argument {other:?}\n\n{USAGE}"),
                }
                i += 1;
            }
            crate::prewarm::prewarm(shared.as_deref())?;
            Ok(0)
        }
        "list" => {
            let found = install::list();
            if found.is_empty() {
                println!("No kernelspecs found");
            }
            for f in found {
                println!(
                    "{:<20} {:<28} {}{}",
                    f.name,
                    f.display_name,
                    f.dir.display(),
                    if f.is_cuprite { "  (cuprite)" } else { "" }
                );
            }
            Ok(0)
        }
        // `run X.ipynb ...` executes a notebook; `run --connection-file F`
        // (what kernel.json says) serves Jupyter.
        "run" if crate::notebook::names_notebook(&args[1..]) => {
            let opts = crate::notebook::parse_args(&args[1..])?;
            crate::notebook::run(&opts)
        }
        "run" | "serve" => {
            let file = parse_run(&args[1..])?;
            crate::server::run(&file)?;
            Ok(0)
        }
        // Jupyter-style invocations: `-f FILE`, `--connection-file FILE`, or the file alone.
        _ => {
            let file = parse_run(&args)?;
            crate::server::run(&file)?;
            Ok(0)
        }
    }
}

fn value<'a>(args: &'a [String], i: &mut usize, flag: &str) -> Result<&'a str> {
    *i += 1;
    args.get(*i)
        .map(String::as_str)
        .with_context(|| format!("{flag} needs a value"))
}

/// Splits `--flag=value` into two arguments (but never the value of
/// `--wrapper-arg`, which is often an option itself: `--wrapper-arg --image=X`).
fn normalize(args: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut raw_next = false;
    for a in args {
        if std::mem::take(&mut raw_next) {
            out.push(a.clone());
            continue;
        }
        if a == "--wrapper-arg" {
            raw_next = true;
        }
        if a.starts_with("--") {
            if let Some((k, v)) = a.split_once('=') {
                out.push(k.to_string());
                out.push(v.to_string());
                continue;
            }
        }
        out.push(a.clone());
    }
    out
}

fn parse_location(args: &[String], i: &mut usize, loc: &mut Option<Location>) -> Result<bool> {
    let new = match args[*i].as_str() {
        "--user" => Location::User,
        "--sys-prefix" => Location::SysPrefix,
        "--prefix" => Location::Prefix(PathBuf::from(value(args, i, "--prefix")?)),
        _ => return Ok(false),
    };
    if loc.is_some() {
        bail!("give at most one of --user, --sys-prefix, --prefix");
    }
    *loc = Some(new);
    Ok(true)
}

fn parse_install(args: &[String]) -> Result<InstallOptions> {
    let args = normalize(args);
    let mut location = None;
    let mut name = install::DEFAULT_NAME.to_string();
    let mut display_name = None;
    let mut env = Vec::new();
    let mut wrapper = None;
    let mut wrapper_args = Vec::new();
    let mut i = 0;
    while i < args.len() {
        if !parse_location(&args, &mut i, &mut location)? {
            match args[i].as_str() {
                "--name" => name = value(&args, &mut i, "--name")?.to_string(),
                "--wrapper" => {
                    if wrapper.is_some() {
                        bail!("give --wrapper once");
                    }
                    wrapper = Some(PathBuf::from(value(&args, &mut i, "--wrapper")?));
                }
                "--wrapper-arg" => {
                    wrapper_args.push(value(&args, &mut i, "--wrapper-arg")?.to_string())
                }
                "--display-name" => {
                    display_name = Some(value(&args, &mut i, "--display-name")?.to_string())
                }
                "--shared-cache" => {
                    let dir = PathBuf::from(value(&args, &mut i, "--shared-cache")?);
                    let dir = std::path::absolute(&dir)?;
                    env.push((
                        crate::prewarm::SHARED_ENV.to_string(),
                        dir.to_string_lossy().into_owned(),
                    ));
                }
                "--env" => {
                    let kv = value(&args, &mut i, "--env")?;
                    let (k, v) = kv
                        .split_once('=')
                        .with_context(|| format!("--env {kv:?}: expected KEY=VALUE"))?;
                    if k.is_empty() {
                        bail!("--env {kv:?}: the variable name is empty");
                    }
                    env.push((k.to_string(), v.to_string()));
                }
                "--spmd-ranks" => {
                    let n = value(&args, &mut i, "--spmd-ranks")?;
                    match n.parse::<usize>() {
                        Ok(w) if w >= 2 => env.push(("CUPRITE_SPMD_RANKS".into(), w.to_string())),
                        _ => bail!("--spmd-ranks {n:?}: give a number of ranks, 2 or more"),
                    }
                }
                "--launcher" => {
                    let l = value(&args, &mut i, "--launcher")?;
                    if !["local", "srun", "mpirun"].contains(&l) {
                        bail!("--launcher {l:?}: use local, srun or mpirun");
                    }
                    env.push(("CUPRITE_SPMD_LAUNCHER".into(), l.to_string()));
                }
                other => bail!("install: unknown argument {other:?}\n\n{USAGE}"),
            }
        }
        i += 1;
    }
    Ok(InstallOptions {
        location: location.unwrap_or(Location::Default),
        name,
        display_name,
        env,
        wrapper,
        wrapper_args,
    })
}

fn parse_uninstall(args: &[String]) -> Result<(Option<Location>, String)> {
    let args = normalize(args);
    let mut location = None;
    let mut name = install::DEFAULT_NAME.to_string();
    let mut i = 0;
    while i < args.len() {
        if !parse_location(&args, &mut i, &mut location)? {
            match args[i].as_str() {
                "--name" => name = value(&args, &mut i, "--name")?.to_string(),
                other => bail!("uninstall: unknown argument {other:?}\n\n{USAGE}"),
            }
        }
        i += 1;
    }
    Ok((location, name))
}

fn parse_run(args: &[String]) -> Result<PathBuf> {
    let args = normalize(args);
    let mut file = None;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "-f" | "--connection-file" | "--connection_file" => {
                file = Some(PathBuf::from(value(&args, &mut i, "--connection-file")?))
            }
            other if !other.starts_with('-') && file.is_none() => file = Some(PathBuf::from(other)),
            other => bail!("unknown argument {other:?}\n\n{USAGE}"),
        }
        i += 1;
    }
    file.context("no connection file given (--connection-file FILE)")
}

/// The `--version` text: Cuprite, evcxr, rustc and the CUDA driver when present.
pub fn version_text() -> String {
    let mut s = format!("cuprite-kernel {}\n", env!("CARGO_PKG_VERSION"));
    s += &format!("cuprite {}\n", env!("CARGO_PKG_VERSION"));
    s += &format!("evcxr {}\n", crate::sources::EVCXR_VERSION);
    let rustc = std::process::Command::new("rustc")
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    match rustc {
        Some(v) => s += &format!("{v} (cells)\n"),
        None => s += "rustc: not found on PATH (cells cannot be compiled)\n",
    }
    s += &format!("{} (kernel build)\n", crate::sources::BUILD_RUSTC);
    match cuda_driver_version() {
        Some(v) => s += &format!("CUDA driver {v}\n"),
        None => s += "CUDA driver: not found\n",
    }
    // What cells will run on (`kernelspec/start-lab` looks for "Device: cpu").
    let (device, reason) = cuprite::device::default_device_and_reason();
    s += &format!("Device: {device} ({reason})\n");
    s
}

/// The CUDA driver's version ("13.0"), if a driver library loads.
pub fn cuda_driver_version() -> Option<String> {
    type GetVersion = unsafe extern "C" fn(*mut i32) -> i32;
    for name in ["libcuda.so.1", "libcuda.so"] {
        // SAFETY: loading the driver runs only its own initialisers.
        let Ok(lib) = (unsafe { libloading::Library::new(name) }) else {
            continue;
        };
        // SAFETY: cuDriverGetVersion(int*) matches the CUDA driver API.
        let v = unsafe {
            let f: libloading::Symbol<GetVersion> = lib.get(b"cuDriverGetVersion\0").ok()?;
            let mut v = 0i32;
            if f(&mut v) != 0 {
                return None;
            }
            v
        };
        return Some(format!("{}.{}", v / 1000, (v % 1000) / 10));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn install_arguments() {
        let o = parse_install(&strings(&[
            "--user",
            "--name",
            "gpu",
            "--display-name=Rust GPU",
            "--env",
            "A=1",
            "--env",
            "B=x=y",
        ]))
        .unwrap();
        assert_eq!(o.location, Location::User);
        assert_eq!(o.name, "gpu");
        assert_eq!(o.display_name.as_deref(), Some("Rust GPU"));
        assert_eq!(
            o.env,
            vec![("A".into(), "1".into()), ("B".into(), "x=y".into())]
        );
        let o = parse_install(&strings(&["--prefix", "/opt/env"])).unwrap();
        assert_eq!(o.location, Location::Prefix("/opt/env".into()));
        assert!(parse_install(&strings(&["--user", "--sys-prefix"])).is_err());
        assert!(parse_install(&strings(&["--env", "novalue"])).is_err());
        assert!(parse_install(&strings(&["--bogus"])).is_err());
    }

    #[test]
    fn install_wrapper_arguments() {
        let o = parse_install(&strings(&[
            "--user",
            "--wrapper",
            "kernelspec/cluster/cuprite-apptainer-kernel",
            "--wrapper-arg",
            "--image=/sw/cuprite.sif",
            "--wrapper-arg=--bind=/scratch",
            "--wrapper-arg",
            "--wrapper-arg",
        ]))
        .unwrap();
        assert_eq!(
            o.wrapper,
            Some(PathBuf::from("kernelspec/cluster/cuprite-apptainer-kernel"))
        );
        assert_eq!(
            o.wrapper_args,
            strings(&[
                "--image=/sw/cuprite.sif",
                "--bind=/scratch",
                "--wrapper-arg"
            ])
        );
        assert!(parse_install(&strings(&["--wrapper", "a", "--wrapper", "b"])).is_err());
        assert!(parse_install(&strings(&["--wrapper-arg"])).is_err());
    }

    #[test]
    fn run_arguments() {
        assert_eq!(
            parse_run(&strings(&["-f", "a.json"])).unwrap(),
            PathBuf::from("a.json")
        );
        assert_eq!(
            parse_run(&strings(&["--connection-file=b.json"])).unwrap(),
            PathBuf::from("b.json")
        );
        assert_eq!(
            parse_run(&strings(&["c.json"])).unwrap(),
            PathBuf::from("c.json")
        );
        assert!(parse_run(&[]).is_err());
    }

    #[test]
    fn run_dispatches_on_the_notebook_extension() {
        // A notebook is executed; anything else is a connection file to serve.
        assert!(crate::notebook::names_notebook(&strings(&[
            "nb.ipynb", "--html", "r.html"
        ])));
        assert!(!crate::notebook::names_notebook(&strings(&[
            "--connection-file",
            "/run/user/kernel-1.json"
        ])));
        assert!(!crate::notebook::names_notebook(&strings(&[
            "kernel-1.json"
        ])));
    }
}
