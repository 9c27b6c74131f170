//! `cuprite-kernel`: a Jupyter kernel for Rust cells, evaluated by evcxr with
//! `use cuprite_kernel_io::cp;` (the runtime plus plots, displays, progress
//! bars, widgets and input) and the runtime and display preludes in scope.
//!
//! One file per concern: `server` (ZeroMQ protocol), `session` (the evcxr
//! session on its own thread), `side_channel` (output and displays from the
//! cell process), `magics`, `history`, `is_complete`, `errors` (tracebacks),
//! `install` (kernelspecs), `sources` and `build_dir` (what cells build with),
//! `cell_build` (cell builds without cargo's per-call cost),
//! `analyzer_graph` (the crate graph evcxr's rust-analyzer loads),
//! `notebook` (`run NOTEBOOK.ipynb`: headless execution and HTML reports),
//! `cell_runtime` (the cell process), `debugger` (the Variables panel's
//! requests), `lifeline` (what a dead kernel leaves for the next one),
//! `spmd` (`run --spmd`) and `spmd_kernel` (an interactive kernel over
//! several ranks).

mod analyzer_graph;
mod build_dir;
mod cell_build;
mod cell_runtime;
mod cli;
mod debugger;
mod errors;
mod history;
mod install;
mod is_complete;
mod lifeline;
mod locks;
mod magics;
mod notebook;
mod paths;
mod prewarm;
mod server;
mod session;
mod shell;
mod side_channel;
mod sources;
mod spmd;
mod spmd_kernel;
mod usage;

fn main() {
    // The kernel binary is also evcxr's cell process and rustc wrapper: this
    // must run before anything else (threads, async runtime, CUDA).
    // It is also evcxr's build command for cells (`cell_build`).
    let mut argv = std::env::args_os();
    let argv0 = argv.next().unwrap_or_default();
    // Only the kernel process itself runs with rust-analyzer's CARGO_HOME.
    let analyzer_cargo = analyzer_graph::is_cargo_role(&argv0);
    analyzer_graph::leave_overlay();
    if analyzer_cargo {
        let bin = std::path::Path::new(&argv0)
            .parent()
            .unwrap_or(std::path::Path::new(""));
        std::process::exit(analyzer_graph::cargo_main(
            bin.to_path_buf(),
            argv.collect(),
        ));
    }
    match cell_build::role(&argv0) {
        Some(cell_build::MOLD_NAME) => std::process::exit(cell_build::mold_main(argv.collect())),
        Some(_) => std::process::exit(cell_build::recorder_main(argv.collect())),
        None => {}
    }
    if cell_runtime::is_cell_process() {
        cell_runtime::run();
    }
    // evcxr's rustc wrapper, when started as one.
    evcxr::runtime_hook();
    let code = match cli::run(std::env::args().skip(1).collect()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("cuprite-kernel: {e:#}");
            1
        }
    };
    std::process::exit(code);
}
