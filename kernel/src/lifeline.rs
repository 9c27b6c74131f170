//! What a kernel leaves for the next one of the same notebook: a record in
//! `<data dir>/kernels/<pid>.json` (the notebook, and the newest `%save_vars`
//! file once there is one), removed at a clean shutdown. A kernel that finds
//! the record of a dead kernel of its notebook (killed, out of memory, its job
//! preempted) tells the user, in its first cell's output, which file brings
//! the lost variables back.

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

struct Lifeline {
    record: PathBuf,
    notebook: String,
    saved: Option<Value>,
    /// What to tell the user in the first cell, once.
    note: Option<String>,
}

static LIFELINE: Mutex<Option<Lifeline>> = Mutex::new(None);

fn lock() -> std::sync::MutexGuard<'static, Option<Lifeline>> {
    LIFELINE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Which notebook this kernel serves: Jupyter's `JPY_SESSION_NAME` (the
/// notebook's path), else the working directory.
fn notebook_name() -> String {
    std::env::var("JPY_SESSION_NAME").unwrap_or_else(|_| {
        std::env::current_dir()
            .map(|d| d.display().to_string())
            .unwrap_or_default()
    })
}

/// Writes this kernel's record and reads what a dead predecessor of the same
/// notebook saved. Failures only lose the note.
pub fn start() {
    let dir = crate::paths::data_dir().join("kernels");
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    let notebook = notebook_name();
    let note = predecessor_note(&dir, &notebook);
    let record = dir.join(format!("{}.json", std::process::id()));
    let line = Lifeline {
        record,
        notebook,
        saved: None,
        note,
    };
    write(&line);
    *lock() = Some(line);
}

/// The note for the first cell, once.
pub fn take_note() -> Option<String> {
    lock().as_mut().and_then(|l| l.note.take())
}

/// Records the newest `%save_vars` file.
pub fn saved(path: &Path, at: chrono::DateTime<chrono::Local>) {
    let mut guard = lock();
    if let Some(l) = guard.as_mut() {
        l.saved = Some(json!({"path": path.display().to_string(), "at": at.to_rfc3339()}));
        write(l);
    }
}

/// A clean shutdown: nothing to tell a successor.
pub fn finish() {
    if let Some(l) = lock().take() {
        let _ = std::fs::remove_file(&l.record);
    }
}

fn write(l: &Lifeline) {
    let body = json!({
        "pid": std::process::id(),
        "notebook": l.notebook,
        "saved": l.saved,
    });
    let tmp = l.record.with_extension("json.tmp");
    if std::fs::write(&tmp, body.to_string()).is_ok() {
        let _ = std::fs::rename(&tmp, &l.record);
    }
}

/// Reads (and removes) the records of dead kernels of `notebook`; the note
/// about the newest save among them.
fn predecessor_note(dir: &Path, notebook: &str) -> Option<String> {
    let mut newest: Option<(String, String, u32)> = None;
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        let Some(pid) = path
            .file_stem()
            .and_then(|s| s.to_str())
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        if path.extension().and_then(|e| e.to_str()) != Some("json") || alive(pid) {
            continue;
        }
        let record: Value = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or(Value::Null);
        // Another notebook's dead kernel is left for that notebook's next kernel.
        if record["notebook"].as_str() != Some(notebook) {
            continue;
        }
        let _ = std::fs::remove_file(&path);
        let (Some(file), Some(at)) = (
            record["saved"]["path"].as_str(),
            record["saved"]["at"].as_str(),
        ) else {
            continue;
        };
        if newest.as_ref().is_none_or(|(_, t, _)| at > t.as_str()) {
            newest = Some((file.to_string(), at.to_string(), pid));
        }
    }
    let (file, at, pid) = newest?;
    let when = chrono::DateTime::parse_from_rfc3339(&at)
        .map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string())
        .unwrap_or(at);
    Some(format!(
        "The previous kernel of this notebook (pid {pid}) ended without shutting down; \
         its newest %save_vars file is {file} (saved {when}): `%load_vars {file}` brings its variables back.\n"
    ))
}

fn alive(pid: u32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    unsafe { libc::kill(pid as i32, 0) == 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dead_kernels_newest_save_of_this_notebook_is_named_once() {
        let dir = std::env::temp_dir().join(format!("cuprite-lifeline-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // pids above the kernel's pid_max are never alive.
        let dead = |pid: u32, nb: &str, saved: Value| {
            std::fs::write(
                dir.join(format!("{pid}.json")),
                json!({"pid": pid, "notebook": nb, "saved": saved}).to_string(),
            )
            .unwrap();
        };
        dead(
            4_000_001,
            "a.ipynb",
            json!({"path": "/w/old.npz", "at": "2026-11-27T10:00:00+00:00"}),
        );
        dead(
            4_000_002,
            "a.ipynb",
            json!({"path": "/w/new.npz", "at": "2026-11-27T11:00:00+00:00"}),
        );
        dead(
            4_000_003,
            "b.ipynb",
            json!({"path": "/w/other.npz", "at": "2026-11-27T12:00:00+00:00"}),
        );
        dead(4_000_004, "a.ipynb", Value::Null);
        let live = std::process::id();
        std::fs::write(
            dir.join(format!("{live}.json")),
            json!({"pid": live, "notebook": "a.ipynb", "saved": {"path": "/w/live.npz", "at": "2026-11-28T00:00:00+00:00"}}).to_string(),
        )
        .unwrap();
        let note = predecessor_note(&dir, "a.ipynb").unwrap();
        assert!(note.contains("pid 4000002"), "{note}");
        assert!(note.contains("%load_vars /w/new.npz"), "{note}");
        // Dead records are read once; the live kernel's is kept.
        assert!(predecessor_note(&dir, "a.ipynb").is_none());
        assert!(dir.join(format!("{live}.json")).exists());
        assert!(dir.join("4000003.json").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
