//! The ping-pong echo server of `nodebench net serve` (TCP and UDP on the
//! iperf3 port + 1) and of `net pingpong --loopback` (in this process on an
//! ephemeral port): every TCP connection starts with the message size as a
//! 4-byte big-endian number, then each message of that size is sent back;
//! every UDP datagram is sent back as is.

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use nodebench_core::affinity;
use nodebench_core::bench::{BenchError, Cancel};

/// Largest message the echo server accepts on TCP.
pub const MAX_TCP_MESSAGE: usize = 1 << 20;
/// How many TCP echo connections the server serves at once.
pub const MAX_CONNECTIONS: usize = 64;

/// The `i`-th CPU of `cpus`, round robin; `None` when the list is empty.
pub(crate) fn nth_cpu(cpus: &[usize], i: usize) -> Option<usize> {
    (!cpus.is_empty()).then(|| cpus[i % cpus.len()])
}

/// The echo side: TCP and UDP on `addr`, until `cancel` is set.
pub struct EchoServer {
    tcp: TcpListener,
    udp: UdpSocket,
    cpus: Vec<usize>,
}

impl EchoServer {
    /// Binds TCP and UDP on `addr`; the error names the port.
    pub fn bind(addr: SocketAddr) -> Result<EchoServer, BenchError> {
        let tcp = TcpListener::bind(addr).map_err(|e| {
            BenchError::System(format!("--port {} (pingpong echo): {e}", addr.port()))
        })?;
        let udp = UdpSocket::bind(
            tcp.local_addr()
                .map_err(|e| e.to_string())
                .map_err(BenchError::System)?,
        )
        .map_err(|e| {
            BenchError::System(format!("--port {} (pingpong echo, UDP): {e}", addr.port()))
        })?;
        Ok(EchoServer {
            tcp,
            udp,
            cpus: Vec::new(),
        })
    }

    /// Pins the echo threads (`net serve --cpus`): TCP connection `j`, in
    /// accept order, to `cpus[j % len]`, the UDP thread to the first;
    /// unpinned when empty.
    pub fn pinned_to(mut self, cpus: Vec<usize>) -> EchoServer {
        self.cpus = cpus;
        self
    }

    /// The bound address.
    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.tcp.local_addr().ok()
    }

    /// Serves until `cancel` is set: a thread for UDP, one per TCP connection
    /// (at most [`MAX_CONNECTIONS`]); every socket has a timeout so the loops
    /// notice cancellation.
    pub fn serve(self, cancel: &Cancel) -> Result<(), BenchError> {
        let poll = Duration::from_millis(200);
        self.tcp
            .set_nonblocking(true)
            .map_err(|e| e.to_string())
            .map_err(BenchError::System)?;
        self.udp
            .set_read_timeout(Some(poll))
            .map_err(|e| e.to_string())
            .map_err(BenchError::System)?;
        let live = Arc::new(AtomicUsize::new(0));
        let mut accepted = 0usize;
        let cpus = &self.cpus;
        let pin = |j: usize| {
            if let Some(cpu) = nth_cpu(cpus, j) {
                affinity::pin_current_thread(cpu);
            }
        };
        std::thread::scope(|s| {
            let udp = &self.udp;
            s.spawn(move || {
                pin(0);
                let mut buf = vec![0u8; 65_536];
                while !cancel.is_cancelled() {
                    if let Ok((n, from)) = udp.recv_from(&mut buf) {
                        let _ = udp.send_to(&buf[..n], from);
                    }
                }
            });
            while !cancel.is_cancelled() {
                match self.tcp.accept() {
                    Ok((stream, _)) => {
                        if live.load(Ordering::SeqCst) >= MAX_CONNECTIONS {
                            continue; // dropped: the client sees the connection close
                        }
                        live.fetch_add(1, Ordering::SeqCst);
                        let live = live.clone();
                        let j = accepted;
                        accepted += 1;
                        s.spawn(move || {
                            pin(j);
                            let _ = echo_tcp(stream, cancel, poll);
                            live.fetch_sub(1, Ordering::SeqCst);
                        });
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        std::thread::sleep(Duration::from_millis(20))
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(20)),
                }
            }
        });
        Ok(())
    }
}

fn echo_tcp(mut s: TcpStream, cancel: &Cancel, poll: Duration) -> std::io::Result<()> {
    s.set_nonblocking(false)?;
    s.set_nodelay(true)?;
    s.set_read_timeout(Some(poll))?;
    let mut head = [0u8; 4];
    read_full(&mut s, &mut head, cancel)?;
    let size = u32::from_be_bytes(head) as usize;
    if size == 0 || size > MAX_TCP_MESSAGE {
        return Ok(());
    }
    let mut buf = vec![0u8; size];
    loop {
        if !read_full(&mut s, &mut buf, cancel)? {
            return Ok(());
        }
        s.write_all(&buf)?;
    }
}

/// Reads exactly `buf.len()` bytes, riding out read timeouts until `cancel`;
/// false at a clean end of stream.
fn read_full(s: &mut TcpStream, buf: &mut [u8], cancel: &Cancel) -> std::io::Result<bool> {
    let mut got = 0;
    while got < buf.len() {
        if cancel.is_cancelled() {
            return Ok(false);
        }
        match s.read(&mut buf[got..]) {
            Ok(0) => return Ok(false),
            Ok(n) => got += n,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

/// Runs `test` with the ping-pong echo server on an ephemeral 127.0.0.1
/// port (`test` gets its address), its threads pinned to `cpus`
/// ([`EchoServer::pinned_to`]); stops it afterwards.
pub fn with_echo_server<R>(
    cpus: Vec<usize>,
    test: impl FnOnce(SocketAddr) -> Result<R, BenchError>,
) -> Result<R, BenchError> {
    let echo =
        EchoServer::bind(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0))?.pinned_to(cpus);
    let addr = echo
        .local_addr()
        .ok_or_else(|| BenchError::System("the echo server has no address".into()))?;
    let stop = Cancel::new();
    std::thread::scope(|s| {
        let stop_echo = stop.clone();
        s.spawn(move || echo.serve(&stop_echo));
        let outcome = test(addr);
        stop.cancel();
        outcome
    })
}
