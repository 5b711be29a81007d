//! The JSON messages of the control connection: the test parameters a
//! client sends after `PARAM_EXCHANGE` and the results both sides exchange
//! after `EXCHANGE_RESULTS`, with iperf3's (cJSON's) number forms.

use serde_json::{Map, Value, json};

use super::Transport;

/// The test parameters a client sends after `PARAM_EXCHANGE` (the keys of
/// iperf3's `send_parameters`). Unknown keys are ignored on reading, as
/// iperf3 does.
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    /// TCP or UDP; `None` when the client named another protocol (SCTP).
    pub transport: Option<Transport>,
    /// Seconds omitted at the start (`omit`).
    pub omit: u64,
    /// Test length in seconds (`time`); 0 when the test is bounded by bytes
    /// or blocks instead.
    pub time: u64,
    /// Byte limit (`num`); 0 = none.
    pub num: u64,
    /// Block-count limit (`blockcount`); 0 = none.
    pub blockcount: u64,
    /// Streams per direction (`parallel`).
    pub parallel: u32,
    /// Server sends, client receives (`reverse`).
    pub reverse: bool,
    /// Both directions at once (`bidirectional`).
    pub bidirectional: bool,
    /// `SO_SNDBUF`/`SO_RCVBUF` for data sockets (`window`), bytes.
    pub window: Option<u64>,
    /// Write/read size (`len`), bytes.
    pub len: Option<u64>,
    /// Target bitrate per stream (`bandwidth`), bits/s; 0 = unlimited.
    pub bandwidth: u64,
    /// Pacing timer in microseconds (`pacing_timer`).
    pub pacing_timer: Option<u64>,
    /// `TCP_NODELAY` on data sockets (`nodelay`).
    pub nodelay: bool,
    /// TCP MSS (`MSS`).
    pub mss: Option<u64>,
    /// TCP congestion control algorithm (`congestion`).
    pub congestion: Option<String>,
    /// 64-bit UDP packet counters (`udp_counters_64bit`).
    pub udp_counters_64bit: bool,
    /// Sender uses zero-copy (`zerocopy`).
    pub zerocopy: bool,
    /// Access token checked by `nodebench net serve --token`
    /// (`nodebench_token`; stock iperf3 servers ignore it).
    pub token: Option<String>,
    /// Client software version (`client_version`).
    pub client_version: Option<String>,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            transport: Some(Transport::Tcp),
            omit: 0,
            time: 10,
            num: 0,
            blockcount: 0,
            parallel: 1,
            reverse: false,
            bidirectional: false,
            window: None,
            len: None,
            bandwidth: 0,
            pacing_timer: None,
            nodelay: false,
            mss: None,
            congestion: None,
            udp_counters_64bit: false,
            zerocopy: false,
            token: None,
            client_version: None,
        }
    }
}

/// Why a JSON message could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(pub String);

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A JSON number as an unsigned integer: integral values, or floats rounded
/// (cJSON prints large or fractional values in float form).
fn num_u64(v: &Value) -> Option<u64> {
    if let Some(n) = v.as_u64() {
        return Some(n);
    }
    let f = v.as_f64()?;
    if (0.0..1.8e19).contains(&f) {
        Some(f.round() as u64)
    } else {
        None
    }
}

/// A JSON number as a signed integer. iperf3 stores -1 in unsigned fields
/// and prints it as 1.8446744073709552e+19, which reads back as -1 here.
fn num_i64(v: &Value) -> Option<i64> {
    if let Some(n) = v.as_i64() {
        return Some(n);
    }
    if let Some(n) = v.as_u64() {
        return Some(n as i64);
    }
    let f = v.as_f64()?;
    if !(-9.2e18..=1.85e19).contains(&f) {
        None
    } else if f >= 9.2e18 {
        Some(f as u64 as i64)
    } else {
        Some(f.round() as i64)
    }
}

fn get_u64(obj: &Map<String, Value>, key: &str) -> Result<Option<u64>, DecodeError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => num_u64(v)
            .map(Some)
            .ok_or_else(|| DecodeError(format!("\"{key}\" is not a non-negative number"))),
    }
}

fn get_flag(obj: &Map<String, Value>, key: &str) -> bool {
    match obj.get(key) {
        None | Some(Value::Null) | Some(Value::Bool(false)) => false,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0),
        Some(_) => true,
    }
}

fn get_string(obj: &Map<String, Value>, key: &str) -> Option<String> {
    obj.get(key).and_then(Value::as_str).map(str::to_owned)
}

impl Params {
    /// The parameter object as iperf3's `send_parameters` builds it: flags
    /// as `true`, everything else as numbers or strings, optional keys only
    /// when set.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        match self.transport {
            Some(Transport::Tcp) => {
                m.insert("tcp".into(), Value::Bool(true));
            }
            Some(Transport::Udp) => {
                m.insert("udp".into(), Value::Bool(true));
            }
            None => {}
        }
        m.insert("omit".into(), json!(self.omit));
        m.insert("time".into(), json!(self.time));
        m.insert("num".into(), json!(self.num));
        m.insert("blockcount".into(), json!(self.blockcount));
        if let Some(mss) = self.mss {
            m.insert("MSS".into(), json!(mss));
        }
        if self.nodelay {
            m.insert("nodelay".into(), Value::Bool(true));
        }
        m.insert("parallel".into(), json!(self.parallel));
        if self.reverse {
            m.insert("reverse".into(), Value::Bool(true));
        }
        if self.bidirectional {
            m.insert("bidirectional".into(), Value::Bool(true));
        }
        if let Some(w) = self.window {
            m.insert("window".into(), json!(w));
        }
        if let Some(l) = self.len {
            m.insert("len".into(), json!(l));
        }
        if self.bandwidth != 0 {
            m.insert("bandwidth".into(), json!(self.bandwidth));
        }
        if let Some(p) = self.pacing_timer {
            m.insert("pacing_timer".into(), json!(p));
        }
        if let Some(c) = &self.congestion {
            m.insert("congestion".into(), json!(c));
        }
        if self.udp_counters_64bit {
            m.insert("udp_counters_64bit".into(), json!(1));
        }
        if self.zerocopy {
            m.insert("zerocopy".into(), json!(1));
        }
        if let Some(t) = &self.token {
            m.insert("nodebench_token".into(), json!(t));
        }
        if let Some(v) = &self.client_version {
            m.insert("client_version".into(), json!(v));
        }
        Value::Object(m)
    }

    /// Reads a parameter object. Missing keys take iperf3's defaults;
    /// unknown keys are ignored; a key of the wrong type is an error.
    pub fn from_json(v: &Value) -> Result<Params, DecodeError> {
        let obj = v
            .as_object()
            .ok_or_else(|| DecodeError("parameters are not a JSON object".into()))?;
        let transport = if get_flag(obj, "udp") {
            Some(Transport::Udp)
        } else if get_flag(obj, "sctp") {
            None
        } else {
            // iperf3 defaults to TCP when no protocol key is present.
            Some(Transport::Tcp)
        };
        let parallel = get_u64(obj, "parallel")?.unwrap_or(1);
        Ok(Params {
            transport,
            omit: get_u64(obj, "omit")?.unwrap_or(0),
            time: get_u64(obj, "time")?.unwrap_or(10),
            num: get_u64(obj, "num")?.unwrap_or(0),
            blockcount: get_u64(obj, "blockcount")?.unwrap_or(0),
            parallel: u32::try_from(parallel).unwrap_or(u32::MAX),
            reverse: get_flag(obj, "reverse"),
            bidirectional: get_flag(obj, "bidirectional"),
            window: get_u64(obj, "window")?.filter(|&w| w > 0),
            len: get_u64(obj, "len")?.filter(|&l| l > 0),
            bandwidth: get_u64(obj, "bandwidth")?.unwrap_or(0),
            pacing_timer: get_u64(obj, "pacing_timer")?,
            nodelay: get_flag(obj, "nodelay"),
            mss: get_u64(obj, "MSS")?.filter(|&m| m > 0),
            congestion: get_string(obj, "congestion"),
            udp_counters_64bit: get_flag(obj, "udp_counters_64bit"),
            zerocopy: get_flag(obj, "zerocopy"),
            token: get_string(obj, "nodebench_token"),
            client_version: get_string(obj, "client_version"),
        })
    }
}

/// One stream's entry in a results message.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamResult {
    /// Stream id (1, 3, 4, 5, ... in creation order, as iperf3 numbers them).
    pub id: u32,
    /// Bytes sent (sender) or received (receiver).
    pub bytes: u64,
    /// TCP retransmits of a sender; -1 when not known.
    pub retransmits: i64,
    /// UDP jitter seen by a receiver, seconds.
    pub jitter: f64,
    /// UDP packets lost (sequence gaps) seen by a receiver.
    pub errors: u64,
    /// UDP packets: sent (sender) or highest sequence number seen (receiver).
    pub packets: u64,
    /// Start of the stream's measurement, seconds (always 0 in iperf3).
    pub start_time: f64,
    /// End of the stream's measurement, seconds after its start.
    pub end_time: f64,
    /// The stream's thread's CPU time, percent of one CPU: sent by a
    /// nodebench peer as `nodebench_thread_cpu` (iperf3 ignores it).
    pub thread_cpu: Option<f64>,
    /// The CPU that thread last ran on (`nodebench_last_cpu`).
    pub last_cpu: Option<u32>,
}

/// A results message (iperf3's `send_results`).
#[derive(Debug, Clone, PartialEq)]
pub struct Results {
    /// Process CPU use over the test, percent of one CPU (user + system).
    pub cpu_util_total: f64,
    /// User part.
    pub cpu_util_user: f64,
    /// System part.
    pub cpu_util_system: f64,
    /// 1 when this side sent on TCP streams and reports retransmits, 0 when
    /// it sent without them, -1 when it only received.
    pub sender_has_retransmits: i64,
    /// Congestion control algorithm used, when known.
    pub congestion_used: Option<String>,
    /// Per-stream figures.
    pub streams: Vec<StreamResult>,
}

impl Results {
    /// The results object with every key a stock iperf3 requires.
    pub fn to_json(&self) -> Value {
        let streams: Vec<Value> = self
            .streams
            .iter()
            .map(|s| {
                let mut v = json!({
                    "id": s.id,
                    "bytes": s.bytes,
                    "retransmits": s.retransmits,
                    "jitter": s.jitter,
                    "errors": s.errors,
                    "packets": s.packets,
                    "start_time": s.start_time,
                    "end_time": s.end_time,
                });
                if let (Some(o), Some(cpu)) = (v.as_object_mut(), s.thread_cpu) {
                    o.insert("nodebench_thread_cpu".into(), json!(cpu));
                    if let Some(c) = s.last_cpu {
                        o.insert("nodebench_last_cpu".into(), json!(c));
                    }
                }
                v
            })
            .collect();
        let mut m = Map::new();
        m.insert("cpu_util_total".into(), json!(self.cpu_util_total));
        m.insert("cpu_util_user".into(), json!(self.cpu_util_user));
        m.insert("cpu_util_system".into(), json!(self.cpu_util_system));
        m.insert(
            "sender_has_retransmits".into(),
            json!(self.sender_has_retransmits),
        );
        if let Some(c) = &self.congestion_used {
            m.insert("congestion_used".into(), json!(c));
        }
        m.insert("streams".into(), Value::Array(streams));
        Value::Object(m)
    }

    /// Reads a results object; the keys iperf3 requires must be present.
    pub fn from_json(v: &Value) -> Result<Results, DecodeError> {
        let obj = v
            .as_object()
            .ok_or_else(|| DecodeError("results are not a JSON object".into()))?;
        let f = |key: &str| -> Result<f64, DecodeError> {
            obj.get(key)
                .and_then(Value::as_f64)
                .ok_or_else(|| DecodeError(format!("results lack \"{key}\"")))
        };
        let streams = obj
            .get("streams")
            .and_then(Value::as_array)
            .ok_or_else(|| DecodeError("results lack \"streams\"".into()))?;
        let mut out = Vec::with_capacity(streams.len());
        for s in streams {
            let so = s
                .as_object()
                .ok_or_else(|| DecodeError("a results stream is not an object".into()))?;
            let req = |key: &str| {
                so.get(key)
                    .ok_or_else(|| DecodeError(format!("results stream lacks \"{key}\"")))
            };
            let id = num_u64(req("id")?)
                .and_then(|i| u32::try_from(i).ok())
                .ok_or_else(|| DecodeError("bad stream id".into()))?;
            out.push(StreamResult {
                id,
                bytes: num_u64(req("bytes")?).ok_or_else(|| DecodeError("bad \"bytes\"".into()))?,
                retransmits: num_i64(req("retransmits")?).unwrap_or(-1),
                jitter: req("jitter")?.as_f64().unwrap_or(0.0),
                errors: num_u64(req("errors")?).unwrap_or(0),
                packets: num_u64(req("packets")?).unwrap_or(0),
                start_time: so.get("start_time").and_then(Value::as_f64).unwrap_or(0.0),
                end_time: so.get("end_time").and_then(Value::as_f64).unwrap_or(0.0),
                thread_cpu: so
                    .get("nodebench_thread_cpu")
                    .and_then(Value::as_f64)
                    .filter(|v| v.is_finite() && *v >= 0.0),
                last_cpu: so
                    .get("nodebench_last_cpu")
                    .and_then(num_u64)
                    .and_then(|c| u32::try_from(c).ok()),
            });
        }
        Ok(Results {
            cpu_util_total: f("cpu_util_total")?,
            cpu_util_user: f("cpu_util_user")?,
            cpu_util_system: f("cpu_util_system")?,
            sender_has_retransmits: obj
                .get("sender_has_retransmits")
                .and_then(num_i64)
                .ok_or_else(|| DecodeError("results lack \"sender_has_retransmits\"".into()))?,
            congestion_used: get_string(obj, "congestion_used"),
            streams: out,
        })
    }
}
