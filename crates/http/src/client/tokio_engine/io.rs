//! The sockets under the tokio engine's connections: a TCP stream that
//! counts the bytes it moves, and the mapping of I/O, connect and HTTP/2
//! errors to the error kinds results count.

use std::cell::Cell;
use std::io;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

use crate::stats::ErrorKind;

/// Anything a connection can run over: TCP, or TLS over TCP.
pub(super) trait Io: AsyncRead + AsyncWrite + Unpin {}

impl<T: AsyncRead + AsyncWrite + Unpin> Io for T {}

/// Socket byte counters shared by all of a thread's connections.
#[derive(Debug, Default)]
pub(super) struct IoCount {
    /// Bytes read.
    pub(super) read: Cell<u64>,
    /// Bytes written.
    pub(super) written: Cell<u64>,
}

/// A TCP stream that adds what it reads and writes to an [`IoCount`].
pub(super) struct Counted {
    /// The stream.
    pub(super) inner: TcpStream,
    /// Where its bytes are counted.
    pub(super) count: Rc<IoCount>,
}

impl AsyncRead for Counted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = r {
            let n = (buf.filled().len() - before) as u64;
            self.count.read.set(self.count.read.get() + n);
        }
        r
    }
}

impl AsyncWrite for Counted {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = r {
            self.count.written.set(self.count.written.get() + n as u64);
        }
        r
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if let Poll::Ready(Ok(n)) = r {
            self.count.written.set(self.count.written.get() + n as u64);
        }
        r
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// A short lower-case description of an I/O error for one-line messages.
pub(super) fn describe(e: &io::Error) -> String {
    let s = e.to_string();
    s.split(" (os error").next().unwrap_or(&s).to_lowercase()
}

/// The error kind of a failed TCP connect (errno; anything unexpected is a
/// connect error).
pub(super) fn connect_error(e: &io::Error) -> ErrorKind {
    match e.raw_os_error().map(ErrorKind::from_errno) {
        Some(ErrorKind::Exception) | None => ErrorKind::ConnectOther,
        Some(kind) => kind,
    }
}

/// The error kind of a failed read or write on an open connection.
pub(super) fn exchange_error(e: &io::Error) -> ErrorKind {
    match e.raw_os_error() {
        Some(errno) => ErrorKind::from_errno(errno),
        None => match e.kind() {
            io::ErrorKind::ConnectionReset
            | io::ErrorKind::BrokenPipe
            | io::ErrorKind::ConnectionAborted => ErrorKind::ConnectReset,
            io::ErrorKind::UnexpectedEof => ErrorKind::Receive,
            _ => ErrorKind::Exception,
        },
    }
}

/// The error kind of an HTTP/2 failure: socket errors by errno, protocol
/// errors and stream resets as receive errors.
pub(super) fn h2_error(e: &h2::Error) -> ErrorKind {
    match e.get_io() {
        Some(io) => exchange_error(io),
        None => ErrorKind::Receive,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_errors_map_to_kinds() {
        let refused = io::Error::from_raw_os_error(libc::ECONNREFUSED);
        assert_eq!(connect_error(&refused), ErrorKind::ConnectRefused);
        let odd = io::Error::from_raw_os_error(libc::EPROTO);
        assert_eq!(connect_error(&odd), ErrorKind::ConnectOther);
        let reset = io::Error::from(io::ErrorKind::ConnectionReset);
        assert_eq!(exchange_error(&reset), ErrorKind::ConnectReset);
        assert_eq!(describe(&refused), "connection refused");
    }
}
