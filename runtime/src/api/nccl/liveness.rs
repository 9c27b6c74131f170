//! Which ranks of a job are still running, learnt from the rendezvous's
//! TCP connections, which stay open for the life of the communicator: a
//! process that exits or is killed closes its connection, rank 0 sees it
//! and tells every other rank. A call waiting on NCCL can then fail naming
//! the lost rank instead of waiting for its whole time limit (NCCL's
//! NVLink and shared-memory transports never notice a dead peer).
//!
//! One thread per process polls the connections; it ends when the
//! communicator that owns the [`Liveness`] is dropped.

use std::collections::BTreeMap;
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

/// How often the connections are looked at.
const POLL: Duration = Duration::from_millis(50);

/// The rendezvous connections a rank keeps: rank 0 holds one per other
/// rank, every other rank one to rank 0.
pub(crate) enum Links {
    Root(Vec<(TcpStream, usize)>),
    Member(TcpStream),
}

/// Ranks known to have gone, with when and how it was learnt.
#[derive(Default)]
pub(crate) struct Liveness {
    lost: Mutex<BTreeMap<usize, (Instant, String)>>,
}

impl Liveness {
    /// Starts watching `links`.
    pub(crate) fn watch(links: Links) -> Arc<Liveness> {
        let me = Arc::new(Liveness::default());
        let weak = Arc::downgrade(&me);
        // Without the thread, calls still end at their time limit, only
        // without naming the lost rank.
        let _ = std::thread::Builder::new()
            .name("cuprite-nccl-liveness".into())
            .spawn(move || match links {
                Links::Root(peers) => watch_root(weak, peers),
                Links::Member(stream) => watch_member(weak, stream),
            });
        me
    }

    /// The ranks known lost: (rank, for how long, how it was learnt).
    pub(crate) fn lost(&self) -> Vec<(usize, Duration, String)> {
        let lost = self.lost.lock().unwrap_or_else(|e| e.into_inner());
        lost.iter()
            .map(|(&r, (at, why))| (r, at.elapsed(), why.clone()))
            .collect()
    }

    fn mark(&self, rank: usize, why: String) -> bool {
        let mut lost = self.lost.lock().unwrap_or_else(|e| e.into_inner());
        if lost.contains_key(&rank) {
            return false;
        }
        lost.insert(rank, (Instant::now(), why));
        true
    }
}

/// What a non-blocking read of a link says.
enum Heard {
    Nothing,
    Bytes(usize),
    /// The connection closed (the process ended) or failed (with why).
    Closed(String),
}

fn listen(stream: &mut TcpStream, buf: &mut [u8]) -> Heard {
    match stream.read(buf) {
        Ok(0) => Heard::Closed("closed".into()),
        Ok(n) => Heard::Bytes(n),
        Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted) => {
            Heard::Nothing
        }
        Err(e) => Heard::Closed(format!("failed: {e}")),
    }
}

fn watch_root(owner: Weak<Liveness>, mut peers: Vec<(TcpStream, usize)>) {
    for (s, _) in &peers {
        let _ = s.set_nonblocking(true);
    }
    let mut open = vec![true; peers.len()];
    let mut buf = [0u8; 64];
    loop {
        let Some(live) = owner.upgrade() else { return };
        let mut newly_lost = Vec::new();
        for (i, (stream, rank)) in peers.iter_mut().enumerate() {
            if !open[i] {
                continue;
            }
            if let Heard::Closed(why) = listen(stream, &mut buf) {
                open[i] = false;
                newly_lost.push((*rank, why));
            }
        }
        // The others are told before this rank's own record changes, so a
        // process that ends as soon as it sees the loss has told them.
        for (rank, _) in &newly_lost {
            let msg = (*rank as u32).to_be_bytes();
            for (i, (stream, _)) in peers.iter_mut().enumerate() {
                if open[i] {
                    let _ = stream.set_nonblocking(false);
                    let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
                    let _ = stream.write_all(&msg);
                    let _ = stream.set_nonblocking(true);
                }
            }
        }
        for (rank, why) in newly_lost {
            live.mark(
                rank,
                format!("its process ended: rank 0's connection to it {why}"),
            );
        }
        drop(live);
        std::thread::sleep(POLL);
    }
}

fn watch_member(owner: Weak<Liveness>, mut stream: TcpStream) {
    let _ = stream.set_nonblocking(true);
    let mut pending: Vec<u8> = Vec::new();
    let mut buf = [0u8; 64];
    loop {
        let Some(live) = owner.upgrade() else { return };
        match listen(&mut stream, &mut buf) {
            Heard::Nothing => {}
            Heard::Bytes(n) => {
                pending.extend_from_slice(&buf[..n]);
                while pending.len() >= 4 {
                    let rank = u32::from_be_bytes([pending[0], pending[1], pending[2], pending[3]]);
                    pending.drain(..4);
                    live.mark(
                        rank as usize,
                        "its process ended: rank 0's connection to it closed".into(),
                    );
                }
            }
            Heard::Closed(why) => {
                live.mark(0, format!("its process ended: the connection to it {why}"));
                return;
            }
        }
        drop(live);
        std::thread::sleep(POLL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    fn wait_for(live: &Liveness, rank: usize) -> Option<String> {
        let until = Instant::now() + Duration::from_secs(5);
        while Instant::now() < until {
            if let Some((_, _, how)) = live.lost().into_iter().find(|(r, _, _)| *r == rank) {
                return Some(how);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        None
    }

    /// Rank 0 and two members over loopback: member 2 goes away, rank 0
    /// sees it and member 1 hears it from rank 0; then rank 0 goes away.
    #[test]
    fn a_closed_connection_is_a_lost_rank_everywhere() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let m1 = TcpStream::connect(addr).unwrap();
        let (r1, _) = listener.accept().unwrap();
        let m2 = TcpStream::connect(addr).unwrap();
        let (r2, _) = listener.accept().unwrap();
        let root = Liveness::watch(Links::Root(vec![(r1, 1), (r2, 2)]));
        let member1 = Liveness::watch(Links::Member(m1));
        assert!(root.lost().is_empty() && member1.lost().is_empty());
        drop(m2);
        let how = wait_for(&root, 2).expect("rank 0 sees rank 2 go");
        assert!(how.contains("process ended"), "{how}");
        let how = wait_for(&member1, 2).expect("rank 1 hears of rank 2");
        assert!(how.contains("rank 0"), "{how}");
        assert!(!member1.lost().iter().any(|(r, _, _)| *r == 0));
        drop(root);
        let how = wait_for(&member1, 0).expect("rank 1 sees rank 0 go");
        assert!(how.contains("process ended"), "{how}");
    }
}
