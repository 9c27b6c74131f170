//! Delivery: in-band frames on stdout inside the kernel (the cell process's
//! output capture sets `CUPRITE_KERNEL_IO_ACTIVE`), plain text outside it,
//! evcxr markers for a cell's final value. Checked in a child process (this
//! test binary run again), whose stdout the test reads.

use cuprite as cp;
use cuprite_display::sink::{encode_frame, FRAME_ESC, KERNEL_ENV};
use cuprite_display::{
    clear_output, display, display_with_id, update_display, DisplayHandle, EvcxrDisplay, Html, Text,
};
use serde_json::Value;

const NONCE: &str = "0123456789abcdef";

/// Runs in the child process only (see the tests below).
#[test]
#[ignore = "run by the tests below in a child process"]
fn child_displays() {
    if std::env::var_os("CUPRITE_DISPLAY_CHILD").is_none() {
        return;
    }
    print!("before ");
    display(&cp::arange(3).unwrap());
    display_with_id(&Text("first".into()), "progress-1");
    update_display(&Html::new("<b>2</b>", "2"), "progress-1");
    let h = DisplayHandle::show(&Text("handle".into()));
    h.update(&Text("handle updated".into()));
    // A quick loop: the first state and the final one (updates are throttled).
    let sum: u32 = cuprite_display::progress(0..10u32)
        .description("work")
        .sum();
    assert_eq!(sum, 45);
    clear_output(true);
    Text("final".into()).evcxr_display();
    println!("after");
    println!("{}", h.id());
}

fn run_child(in_kernel: bool) -> (Vec<u8>, String) {
    let exe = std::env::current_exe().unwrap();
    let mut cmd = std::process::Command::new(exe);
    cmd.args([
        "--exact",
        "child_displays",
        "--include-ignored",
        "--nocapture",
        "--test-threads=1",
        "--quiet",
    ])
    .env("CUPRITE_DISPLAY_CHILD", "1");
    if in_kernel {
        cmd.env(KERNEL_ENV, NONCE);
    } else {
        cmd.env_remove(KERNEL_ENV);
    }
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{stderr}");
    (out.stdout, stderr)
}

/// Splits a stdout stream into text and frames the way the kernel's
/// forwarder does (`cuprite_kernel_io::wire::StdoutParser`).
fn split(stream: &[u8]) -> (String, Vec<Value>) {
    let mut text = Vec::new();
    let mut frames = Vec::new();
    let mut i = 0;
    while i < stream.len() {
        if stream[i..].starts_with(FRAME_ESC) {
            let h = &stream[i + 2..];
            assert_eq!(&h[..16], NONCE.as_bytes());
            assert_eq!(h[16], b'M');
            let len = usize::from_str_radix(std::str::from_utf8(&h[17..25]).unwrap(), 16).unwrap();
            frames.push(serde_json::from_slice(&h[25..25 + len]).unwrap());
            text.extend_from_slice(b"<frame>");
            i += 2 + 25 + len;
        } else {
            text.push(stream[i]);
            i += 1;
        }
    }
    (String::from_utf8(text).unwrap(), frames)
}

#[test]
fn frames_inside_the_kernel_in_order_with_text() {
    let (stdout, _) = run_child(true);
    let (text, msgs) = split(&stdout);
    let id = text
        .lines()
        .skip_while(|l| *l != "after")
        .nth(1)
        .unwrap_or_default()
        .to_string();
    assert!(id.starts_with("cuprite-"), "{text}");
    assert!(
        text.contains("before <frame><frame><frame><frame><frame><frame><frame><frame>"),
        "{text}"
    );
    assert!(
        text.contains("<frame>EVCXR_BEGIN_CONTENT text/plain\nfinal\nEVCXR_END_CONTENT\nafter\n"),
        "{text}"
    );
    assert_eq!(msgs.len(), 8, "{msgs:?}");
    let c = |i: usize| &msgs[i]["content"];

    assert_eq!(msgs[0]["msg_type"], "display_data");
    assert_eq!(c(0)["data"]["text/plain"], "array([0, 1, 2])");
    assert!(c(0)["data"]["text/html"]
        .as_str()
        .unwrap()
        .contains("<table>"));
    assert_eq!(c(0)["metadata"], serde_json::json!({}));
    assert_eq!(c(0)["transient"], serde_json::json!({}));

    assert_eq!(msgs[1]["msg_type"], "display_data");
    assert_eq!(c(1)["transient"]["display_id"], "progress-1");
    assert_eq!(msgs[2]["msg_type"], "update_display_data");
    assert_eq!(c(2)["transient"]["display_id"], "progress-1");
    assert_eq!(c(2)["data"]["text/html"], "<b>2</b>");

    assert_eq!(c(3)["transient"]["display_id"], id.as_str());
    assert_eq!(msgs[4]["msg_type"], "update_display_data");
    assert_eq!(c(4)["transient"]["display_id"], id.as_str());
    assert_eq!(c(4)["data"]["text/plain"], "handle updated");

    assert_eq!(msgs[5]["msg_type"], "display_data");
    let bar = c(5)["transient"]["display_id"].clone();
    assert!(c(5)["data"]["text/plain"]
        .as_str()
        .unwrap()
        .starts_with("work:   0% |"));
    assert!(c(5)["data"]["text/html"]
        .as_str()
        .unwrap()
        .contains("<progress value=\"0\" max=\"10\""));
    assert_eq!(msgs[6]["msg_type"], "update_display_data");
    assert_eq!(c(6)["transient"]["display_id"], bar);
    assert!(c(6)["data"]["text/plain"]
        .as_str()
        .unwrap()
        .starts_with("work: 100% |##"));

    assert_eq!(msgs[7]["msg_type"], "clear_output");
    assert_eq!(c(7)["wait"], true);
}

#[test]
fn text_outside_the_kernel() {
    let (stdout, stderr) = run_child(false);
    let stdout = String::from_utf8(stdout).unwrap();
    assert!(!stdout.contains('\x1b'), "{stdout}");
    assert!(
        stdout.contains("before array([0, 1, 2])\nfirst\n2\nhandle\nhandle updated\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("EVCXR_BEGIN_CONTENT text/plain\nfinal\nEVCXR_END_CONTENT\nafter\n"),
        "{stdout}"
    );
    // The progress bar draws on stderr.
    assert!(stderr.contains("work: 100% |"), "{stderr}");
}

#[test]
fn frame_header() {
    let f = encode_frame(NONCE.as_bytes(), b"{}");
    assert_eq!(f, b"\x1b\x1d0123456789abcdefM00000002{}".to_vec());
}
