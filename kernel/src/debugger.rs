//! The part of Jupyter's debug protocol (DAP requests in `debug_request` on
//! the control channel) that JupyterLab's Variables panel and VS Code's
//! variable viewer use: `initialize`, `attach`, `configurationDone`,
//! `debugInfo`, `inspectVariables`, `richInspectVariables`, `disconnect`.
//!
//! Cells are compiled Rust run in another process, so there is no stepping:
//! breakpoints are answered as not verified, with a message saying why, and
//! requests that need a stopped thread fail with one.

use crate::session::Session;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Why breakpoints and stepping are not available.
const NO_STEPPING: &str = "Cuprite runs each cell as compiled Rust in a separate process: breakpoints and stepping are not available (the Variables panel is).";

/// The debugger's state in one kernel.
#[derive(Default)]
pub struct Debugger {
    attached: AtomicBool,
    seq: AtomicU64,
}

/// A debug request's reply content, and events to publish (`debug_event`).
pub struct Answer {
    pub reply: Value,
    pub events: Vec<Value>,
}

impl Debugger {
    /// Answers one DAP request (the `debug_request` content).
    pub async fn handle(&self, session: &Session, request: &Value) -> Answer {
        let command = request["command"].as_str().unwrap_or("").to_string();
        let args = &request["arguments"];
        let mut events = Vec::new();
        let result: Result<Value, String> = match command.as_str() {
            "initialize" => {
                events.push(self.event("initialized", json!({})));
                Ok(json!({
                    "supportsConfigurationDoneRequest": true,
                    "supportsConditionalBreakpoints": false,
                    "supportsSetVariable": false,
                    "supportsEvaluateForHovers": false,
                    "supportsStepBack": false,
                    "exceptionBreakpointFilters": [],
                }))
            }
            "attach" => {
                self.attached.store(true, Ordering::SeqCst);
                Ok(json!({}))
            }
            "configurationDone" => Ok(json!({})),
            "disconnect" => {
                self.attached.store(false, Ordering::SeqCst);
                Ok(json!({}))
            }
            "debugInfo" => Ok(json!({
                "isStarted": self.attached.load(Ordering::SeqCst),
                "hashMethod": "Murmur2",
                "hashSeed": 3339675911u64,
                "tmpFilePrefix": cells_folder(),
                "tmpFileSuffix": ".rs",
                "breakpoints": [],
                "stoppedThreads": [],
                "richRendering": true,
                "exceptionPaths": [],
            })),
            "dumpCell" => {
                let code = args["code"].as_str().unwrap_or("");
                Ok(json!({"sourcePath": format!("{}{:016x}.rs", cells_folder(), fnv(code))}))
            }
            "setBreakpoints" => {
                let breakpoints: Vec<Value> = args["breakpoints"]
                    .as_array()
                    .map(|b| {
                        b.iter()
                            .map(|bp| {
                                json!({"verified": false, "line": bp["line"], "message": NO_STEPPING})
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                Ok(json!({"breakpoints": breakpoints}))
            }
            "setExceptionBreakpoints" => Ok(json!({"breakpoints": []})),
            "threads" => Ok(json!({"threads": []})),
            "inspectVariables" => session.variables().await.map(
                |vars| json!({"variables": vars.into_iter().map(dap_variable).collect::<Vec<_>>()}),
            ),
            "richInspectVariables" => {
                let name = args["variableName"].as_str().unwrap_or("").to_string();
                if !is_identifier(&name) {
                    Err(format!("{name:?} is not a variable name"))
                } else {
                    session
                        .rich_variable(name)
                        .await
                        .map(|data| json!({"data": data, "metadata": {}}))
                }
            }
            "stackTrace" | "scopes" | "variables" | "continue" | "next" | "stepIn" | "stepOut"
            | "pause" | "evaluate" | "source" => Err(NO_STEPPING.into()),
            other => Err(format!(
                "cuprite-kernel does not handle the debug request {other:?}"
            )),
        };
        let seq = self.seq.fetch_add(1, Ordering::SeqCst) + 1;
        let mut reply = json!({
            "type": "response",
            "seq": seq,
            "request_seq": request["seq"],
            "command": command,
        });
        match result {
            Ok(body) => {
                reply["success"] = json!(true);
                reply["body"] = body;
            }
            Err(message) => {
                reply["success"] = json!(false);
                reply["message"] = json!(message);
                reply["body"] = json!({});
            }
        }
        Answer { reply, events }
    }

    fn event(&self, name: &str, body: Value) -> Value {
        let seq = self.seq.fetch_add(1, Ordering::SeqCst) + 1;
        json!({"type": "event", "seq": seq, "event": name, "body": body})
    }
}

/// A variable as DAP shows it (no children: `variablesReference` 0).
fn dap_variable(v: Value) -> Value {
    let name = v["name"].as_str().unwrap_or("").to_string();
    json!({
        "name": name,
        "value": v["value"].as_str().unwrap_or(""),
        "type": v["type"].as_str().unwrap_or(""),
        "evaluateName": name,
        "variablesReference": 0,
    })
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Where dumped cells would live (nothing is written: no breakpoints).
fn cells_folder() -> String {
    format!(
        "{}/cuprite-debug-{}/",
        std::env::temp_dir().display(),
        std::process::id()
    )
}

/// A stable name for a cell's source.
fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf29ce484222325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100000001b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers() {
        assert!(is_identifier("a_1"));
        assert!(is_identifier("_x"));
        assert!(!is_identifier("1a"));
        assert!(!is_identifier("a; std::process::exit(1)"));
        assert!(!is_identifier(""));
    }

    #[test]
    fn variables_in_dap_form() {
        let v = dap_variable(json!({"name": "x", "type": "i32", "value": "3"}));
        assert_eq!(v["evaluateName"], "x");
        assert_eq!(v["variablesReference"], 0);
        assert_eq!(v["value"], "3");
    }
}
