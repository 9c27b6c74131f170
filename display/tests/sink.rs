//! Delivery: JSON lines on the kernel's Unix socket, evcxr markers on stdout
//! without it (checked in a child process, whose stdout the test reads).

use std::io::{BufRead, BufReader};
use std::os::unix::net::UnixListener;

use cuprite as cp;
use cuprite_display::sink::SOCKET_ENV;
use cuprite_display::{
    display, display_with_id, update_display, DisplayHandle, EvcxrDisplay, Html, Text,
};
use serde_json::Value;

#[test]
fn socket_gets_one_json_line_per_display() -> cp::Result<()> {
    let dir = std::env::temp_dir().join(format!("cuprite-display-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("display.sock");
    let _ = std::fs::remove_file(&path);
    let listener = UnixListener::bind(&path).unwrap();
    const N: usize = 7;
    let server = std::thread::spawn(move || {
        let mut lines = Vec::new();
        for _ in 0..N {
            let (stream, _) = listener.accept().unwrap();
            let mut line = String::new();
            BufReader::new(&stream).read_line(&mut line).unwrap();
            lines.push(line);
            // Closing the connection is the acknowledgement.
        }
        lines
    });
    std::env::set_var(SOCKET_ENV, &path);
    let a = cp::arange(3)?;
    display(&a);
    display_with_id(&Text("first".into()), "progress-1");
    update_display(&Html::new("<b>2</b>", "2"), "progress-1");
    let h = DisplayHandle::show(&Text("handle".into()));
    h.update(&Text("handle updated".into()));
    // A quick loop: the first state and the final one (updates are throttled).
    let sum: u32 = cuprite_display::progress(0..10u32)
        .description("work")
        .sum();
    assert_eq!(sum, 45);
    std::env::remove_var(SOCKET_ENV);
    let lines = server.join().unwrap();
    let msgs: Vec<Value> = lines
        .iter()
        .map(|l| {
            assert!(
                l.ends_with('\n') && !l[..l.len() - 1].contains('\n'),
                "one line: {l:?}"
            );
            serde_json::from_str(l).unwrap()
        })
        .collect();

    assert_eq!(msgs[0]["msg_type"], "display_data");
    assert_eq!(msgs[0]["data"]["text/plain"], "array([0, 1, 2])");
    assert!(msgs[0]["data"]["text/html"]
        .as_str()
        .unwrap()
        .contains("<table>"));
    assert_eq!(msgs[0]["metadata"], serde_json::json!({}));
    assert_eq!(msgs[0]["transient"], serde_json::json!({}));

    assert_eq!(msgs[1]["msg_type"], "display_data");
    assert_eq!(msgs[1]["transient"]["display_id"], "progress-1");
    assert_eq!(msgs[2]["msg_type"], "update_display_data");
    assert_eq!(msgs[2]["transient"]["display_id"], "progress-1");
    assert_eq!(msgs[2]["data"]["text/html"], "<b>2</b>");

    let id = h.id();
    assert!(id.starts_with("cuprite-"));
    assert_eq!(msgs[3]["transient"]["display_id"], id);
    assert_eq!(msgs[4]["msg_type"], "update_display_data");
    assert_eq!(msgs[4]["transient"]["display_id"], id);
    assert_eq!(msgs[4]["data"]["text/plain"], "handle updated");

    assert_eq!(msgs[5]["msg_type"], "display_data");
    let bar = msgs[5]["transient"]["display_id"].clone();
    assert!(msgs[5]["data"]["text/plain"]
        .as_str()
        .unwrap()
        .starts_with("work:   0% |"));
    assert!(msgs[5]["data"]["text/html"]
        .as_str()
        .unwrap()
        .contains("<progress value=\"0\" max=\"10\""));
    assert_eq!(msgs[6]["msg_type"], "update_display_data");
    assert_eq!(msgs[6]["transient"]["display_id"], bar);
    assert!(msgs[6]["data"]["text/plain"]
        .as_str()
        .unwrap()
        .starts_with("work: 100% |##"));
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// Runs in the child process only (see `stdout_markers_without_socket`).
#[test]
#[ignore = "run by stdout_markers_without_socket in a child process"]
fn child_prints_markers() {
    if std::env::var_os("CUPRITE_DISPLAY_CHILD").is_none() {
        return;
    }
    println!("before");
    display(&Html::new("<i>one</i>", "one"));
    Text("two".into()).evcxr_display();
    cuprite_display::show(&cp::arange(2).unwrap());
    println!("after");
}

#[test]
fn stdout_markers_without_socket() {
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(exe)
        .args([
            "--exact",
            "child_prints_markers",
            "--include-ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("CUPRITE_DISPLAY_CHILD", "1")
        .env_remove(SOCKET_ENV)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let expected = "before\n\
        EVCXR_BEGIN_CONTENT text/plain\none\nEVCXR_END_CONTENT\n\
        EVCXR_BEGIN_CONTENT text/html\n<i>one</i>\nEVCXR_END_CONTENT\n\
        EVCXR_BEGIN_CONTENT text/plain\ntwo\nEVCXR_END_CONTENT\n\
        EVCXR_BEGIN_CONTENT text/plain\narray([0, 1])\nEVCXR_END_CONTENT\n\
        EVCXR_BEGIN_CONTENT text/html\n";
    assert!(stdout.contains(expected), "{stdout}");
    assert!(stdout.contains("EVCXR_END_CONTENT\nafter\n"), "{stdout}");
}

#[test]
fn unreachable_socket_falls_back_to_stdout() {
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(exe)
        .args([
            "--exact",
            "child_prints_markers",
            "--include-ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("CUPRITE_DISPLAY_CHILD", "1")
        .env(SOCKET_ENV, "/nonexistent/cuprite.sock")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stdout.contains("EVCXR_BEGIN_CONTENT text/html\n<i>one</i>\n"),
        "{stdout}"
    );
    assert!(
        stderr.contains("could not reach the display socket /nonexistent/cuprite.sock"),
        "{stderr}"
    );
}
