//! THE list of a kernel's top-function ports, per attach kind: name, direction, C++ type, AXI
//! interface and width, and the bit fields of every record a port carries.
//!
//! Everyone who touches the kernel's boundary reads this list and nothing else: the writer (the top
//! function's signature and its `INTERFACE` pragmas), the testbench (which streams it feeds and
//! drains), the Coyote `vfpga_top.svh` generator (which `<kernel>_hls_ip` ports it wires to which
//! shell interface, and which it ties off) and the package manifest (`ports`).
//!
//! Conventions (Coyote's HLS kernels, `docs/hls.md`): the kernel is free-running
//! (`ap_ctrl_none`); every stream is `#pragma HLS INTERFACE axis register port=NAME`, so Vitis
//! names its signals `NAME_TDATA`, `NAME_TVALID`, `NAME_TREADY` (+ `NAME_TKEEP`, `NAME_TSTRB`,
//! `NAME_TLAST` for [`Interface::AxisPacket`]); scalars are `ap_none` inputs (`NAME`). Packet
//! streams are `hls::stream<ap_axiu<512,0,0,0>>`: byte `i` of a beat is `data(8i+7, 8i)`, `keep`
//! marks valid bytes, `last` the packet's last beat; `strb` is driven equal to `keep` and ignored
//! on input. Record streams are `hls::stream<ap_uint<W>>` with the fields listed in
//! [`Port::fields`] (bit `lo` upwards; unlisted bits are zero), never C++ structs, so that their
//! layout does not depend on the HLS version's struct packing.
//!
//! Every port of an attach kind is always present, used or not (a program without `to_scu` still
//! has `scu_out`): the shell wiring depends only on the attach kind and the control data width.
//! Ports are listed in the order of the top function's parameters.

use scenic_ir::program::Attach;
use serde::Serialize;

/// Which way data flows, seen from the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Into the kernel.
    In,
    /// Out of the kernel.
    Out,
}

/// How a port is implemented in RTL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Interface {
    /// AXI4-Stream with `TDATA`, `TKEEP`, `TSTRB`, `TLAST` (`ap_axiu<512,0,0,0>`).
    AxisPacket,
    /// AXI4-Stream with `TDATA` only (an `ap_uint<W>` record per transfer).
    AxisRecord,
    /// A plain input wire (`ap_none`), sampled whenever the kernel runs.
    ApNone,
}

/// What a port is for; lets generators pick the shell interface without matching on names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Packets from the network (slow path).
    NetIn,
    /// Per-packet metadata of `NetIn`.
    NetInMeta,
    /// Packets to the network.
    NetOut,
    /// Per-packet metadata of `NetOut` (the egress port).
    NetOutMeta,
    /// Packets to the host (the slow path's Linux netdev).
    HostOut,
    /// Packets to another SCU of the same build.
    ScuOut,
    /// Per-packet metadata of `ScuOut` (the destination SCU).
    ScuOutMeta,
    /// Payload words of the bound queue pairs or sessions (rdma/tcp).
    WordIn,
    /// Per-word metadata of `WordIn` (the flow).
    WordInMeta,
    /// Payload words passed on unchanged in position (`pass`).
    PassOut,
    /// Words pushed to `out` outputs.
    PushOut,
    /// Per-word metadata of `PushOut` (which output and element).
    PushOutMeta,
    /// Interrupts (`notify`).
    NotifyOut,
    /// Host control requests (`scenic_scu_abi::control`).
    CtrlIn,
    /// Host control responses.
    CtrlOut,
    /// The shell's nanosecond clock.
    NowNs,
    /// Congestion signals for a cc kernel (acks, CNPs, losses, RTT samples, bytes sent).
    CcEventIn,
    /// A cc kernel's rate or window updates, per flow.
    CcUpdateOut,
}

/// Which Coyote v2 vFPGA interface a port connects to in the generated `vfpga_top.svh`
/// (`docs/hls.md`, "Ports"). `Glue` ports are driven by logic the generator writes itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CoyoteBinding {
    /// The slow path's receive stream (SCENIC's network-to-SCU path; on stock Coyote the
    /// sniffer's `axis_rx_sniffer`).
    SlowPathRx,
    /// Packets back to the network (SCENIC's SCU-to-network path).
    SlowPathTx,
    /// `axis_host_send[0]`: packets to the host.
    HostSend,
    /// Another SCU of the same build (the shell's SCU-to-SCU crossbar).
    ScuLink,
    /// `axis_rrsp_recv[0]` / `axis_rreq_recv[0]`: RDMA payload into the SCU.
    RdmaRecv,
    /// `axis_rrsp_send[0]` / `axis_rreq_send[0]`: RDMA payload out of the SCU.
    RdmaSend,
    /// `axis_card_send[*]` / `axis_host_send[*]`: DMA outputs.
    DmaSend,
    /// `notify`: `irq_not_t {pid, value}` (to_arm selects the Arm cores' queue).
    Notify,
    /// Generated glue: the AXI-Lite `axi_ctrl` mailbox bridge (`scenic_scu_abi::control::Mailbox`).
    CtrlBridge,
    /// Generated glue: a free-running nanosecond counter from `aclk`.
    Clock,
    /// The transport's congestion signals (SCENIC's RoCE/TCP stacks feed them to a cc).
    CcSignals,
    /// The transport's per-flow pacer or window (what a cc's updates set).
    CcPacer,
}

/// A bit field of a record port.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PortField {
    /// Its name.
    pub name: &'static str,
    /// Its lowest bit.
    pub lo: u32,
    /// Its width.
    pub width: u32,
    /// What it holds.
    pub doc: &'static str,
}

/// One parameter of the top function.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Port {
    /// The C++ parameter name.
    pub name: &'static str,
    /// The RTL port prefix (`name=` of the INTERFACE pragma): `s_axis_<name>` for input streams,
    /// `m_axis_<name>` for output streams, the name itself for `ap_none` scalars. Signals are
    /// `<rtl_name>_TDATA`, `_TVALID`, `_TREADY` (+ `_TKEEP`, `_TSTRB`, `_TLAST`).
    pub rtl_name: String,
    /// Where it connects in Coyote.
    pub coyote: CoyoteBinding,
    /// What it is for.
    pub role: Role,
    /// Into or out of the kernel.
    pub direction: Direction,
    /// The C++ parameter type (`hls::stream<axis512>&`, `ap_uint<64>`).
    pub cpp_type: String,
    /// The RTL interface.
    pub interface: Interface,
    /// `TDATA` width (or the wire's width for `ap_none`).
    pub width: u32,
    /// The fields of a record port (empty for packet streams).
    pub fields: Vec<PortField>,
    /// A sentence for generated comments and the manifest.
    pub doc: &'static str,
}

/// The C++ type of one 512-bit packet beat (`axis512` is its typedef in the kernel header).
pub const AXIS_TYPE: &str = "ap_axiu<512,0,0,0>";
/// Width of a packet beat's data.
pub const BEAT_BITS: u32 = 512;
/// Width of the `net_in_meta` record.
pub const NET_IN_META_BITS: u32 = 128;
/// Width of the `net_out_meta`, `scu_out_meta`, `word_in_meta` and `push_out_meta` records.
pub const META_BITS: u32 = 64;
/// Width of a `notify_out` record.
pub const NOTIFY_BITS: u32 = 64;

fn rtl(name: &str, direction: Direction) -> String {
    match direction {
        Direction::In => format!("s_axis_{name}"),
        Direction::Out => format!("m_axis_{name}"),
    }
}

/// The Coyote interface of a role.
pub fn binding(role: Role) -> CoyoteBinding {
    match role {
        Role::NetIn | Role::NetInMeta => CoyoteBinding::SlowPathRx,
        Role::NetOut | Role::NetOutMeta => CoyoteBinding::SlowPathTx,
        Role::HostOut => CoyoteBinding::HostSend,
        Role::ScuOut | Role::ScuOutMeta => CoyoteBinding::ScuLink,
        Role::WordIn | Role::WordInMeta => CoyoteBinding::RdmaRecv,
        Role::PassOut => CoyoteBinding::RdmaSend,
        Role::PushOut | Role::PushOutMeta => CoyoteBinding::DmaSend,
        Role::NotifyOut => CoyoteBinding::Notify,
        Role::CtrlIn | Role::CtrlOut => CoyoteBinding::CtrlBridge,
        Role::NowNs => CoyoteBinding::Clock,
        Role::CcEventIn => CoyoteBinding::CcSignals,
        Role::CcUpdateOut => CoyoteBinding::CcPacer,
    }
}

fn packet(name: &'static str, role: Role, direction: Direction, doc: &'static str) -> Port {
    Port {
        name,
        rtl_name: rtl(name, direction),
        coyote: binding(role),
        role,
        direction,
        cpp_type: "hls::stream<axis512>&".into(),
        interface: Interface::AxisPacket,
        width: BEAT_BITS,
        fields: Vec::new(),
        doc,
    }
}

fn record(
    name: &'static str,
    role: Role,
    direction: Direction,
    width: u32,
    fields: Vec<PortField>,
    doc: &'static str,
) -> Port {
    Port {
        name,
        rtl_name: rtl(name, direction),
        coyote: binding(role),
        role,
        direction,
        cpp_type: format!("hls::stream<ap_uint<{width}> >&"),
        interface: Interface::AxisRecord,
        width,
        fields,
        doc,
    }
}

fn field(name: &'static str, lo: u32, width: u32, doc: &'static str) -> PortField {
    PortField {
        name,
        lo,
        width,
        doc,
    }
}

/// The ports every kernel has: notifications, control and the clock.
fn common(ctrl_data_bits: u32) -> Vec<Port> {
    use Direction::*;
    let d = ctrl_data_bits;
    vec![
        record(
            "notify_out",
            Role::NotifyOut,
            Out,
            NOTIFY_BITS,
            vec![
                field("value", 0, 32, "the notified value, zero-extended"),
                field("to_arm", 32, 1, "1: to the Arm cores; 0: to the host"),
            ],
            "one interrupt per `notify`, in program order",
        ),
        record(
            "ctrl_in",
            Role::CtrlIn,
            In,
            d + 56,
            vec![
                field("data", 0, d, "the request record (scenic_ir::control)"),
                field("index", d, 32, "cell, entry handle or position"),
                field("target", d + 32, 16, "CSR offset or object index"),
                field("op", d + 48, 8, "scenic_ir::control::Op"),
            ],
            "host control requests; one response each on ctrl_out, in order",
        ),
        record(
            "ctrl_out",
            Role::CtrlOut,
            Out,
            d + 8,
            vec![
                field("data", 0, d, "the response record"),
                field("status", d, 8, "scenic_ir::control::Status"),
            ],
            "host control responses",
        ),
        Port {
            name: "now_ns",
            rtl_name: "now_ns".into(),
            coyote: CoyoteBinding::Clock,
            role: Role::NowNs,
            direction: In,
            cpp_type: "ap_uint<64>".into(),
            interface: Interface::ApNone,
            width: 64,
            fields: Vec::new(),
            doc: "the shell's clock in ns (vfpga_top.svh derives it from a cycle counter); \
                  `every` blocks run when it reaches their due time",
        },
    ]
}

/// The top-function ports of a kernel for an scu on `attach`, whose control interface carries
/// `ctrl_data_bits` of data (`scenic_scu_abi::control::ControlLayout::data_bits`).
pub fn top_ports(attach: Attach, ctrl_data_bits: u32) -> Vec<Port> {
    let mut ports = match attach {
        Attach::SlowPath => slow_path_packet_ports(),
        Attach::Rdma | Attach::Tcp => stream_word_ports(),
    };
    ports.extend(common(ctrl_data_bits));
    ports
}

/// The packet ports of a slow-path scu: packets in with their metadata, copies out to the
/// network, the host and other scus.
fn slow_path_packet_ports() -> Vec<Port> {
    use Direction::*;
    vec![
        packet(
            "net_in",
            Role::NetIn,
            In,
            "packets from the network, one after another",
        ),
        record(
            "net_in_meta",
            Role::NetInMeta,
            In,
            NET_IN_META_BITS,
            vec![
                field("timestamp_ns", 0, 64, "arrival time (`packet.timestamp`)"),
                field("port", 64, 8, "ingress port (`packet.port`)"),
            ],
            "one record per packet of net_in, written with or before its first beat",
        ),
        packet(
            "net_out",
            Role::NetOut,
            Out,
            "copies sent with `to_network(port)`",
        ),
        record(
            "net_out_meta",
            Role::NetOutMeta,
            Out,
            META_BITS,
            vec![field("port", 0, 8, "egress port")],
            "one record per packet of net_out, written before its first beat",
        ),
        packet(
            "host_out",
            Role::HostOut,
            Out,
            "copies sent with `to_host()` and packets with no destination chosen",
        ),
        packet(
            "scu_out",
            Role::ScuOut,
            Out,
            "copies sent with `to_scu(name)`",
        ),
        record(
            "scu_out_meta",
            Role::ScuOutMeta,
            Out,
            META_BITS,
            vec![field("scu", 0, 16, "destination scu, in declaration order")],
            "one record per packet of scu_out, written before its first beat",
        ),
    ]
}

/// The word ports of an scu on a stream (rdma or tcp): words in with their flow, words passed on
/// and words pushed to outputs.
fn stream_word_ports() -> Vec<Port> {
    use Direction::*;
    vec![
        packet(
            "word_in",
            Role::WordIn,
            In,
            "payload words of the bound flows",
        ),
        record(
            "word_in_meta",
            Role::WordInMeta,
            In,
            META_BITS,
            vec![field("flow", 0, 24, "queue pair (rdma) or session (tcp)")],
            "one record per word of word_in",
        ),
        packet(
            "pass_out",
            Role::PassOut,
            Out,
            "words passed on (`pass`), with the input word's keep and last",
        ),
        packet(
            "push_out",
            Role::PushOut,
            Out,
            "words pushed to outputs (`push`)",
        ),
        record(
            "push_out_meta",
            Role::PushOutMeta,
            Out,
            META_BITS,
            vec![
                field("out", 0, 16, "the output, in declaration order"),
                field("element", 16, 16, "the element of an output array"),
            ],
            "one record per word of push_out",
        ),
    ]
}

/// Width of a `cc_event_in` record: the first 192 bits are every kind's fields (their positions
/// fixed since kind 7), bits 192..384 the rest of an `int` hop (kind 8).
pub const CC_EVENT_BITS: u32 = 384;

/// The fields of a `cc_event_in` record, low bits first.
pub fn cc_event_fields() -> Vec<PortField> {
    vec![
        field(
            "kind",
            0,
            8,
            "0 tick, 1 ack, 2 cnp, 3 ecn, 4 loss, 5 timeout, 6 rtt, 7 bytes sent, 8 int (one hop of INT)",
        ),
        field(
            "flow",
            8,
            32,
            "the flow's slot, below the cc's `per flow[N]`",
        ),
        field("ecn", 40, 1, "ack: the ECN echo"),
        field("hop", 48, 8, "int: the hop's position, 0 = the first switch"),
        field("hops", 56, 8, "int: hops on the ACK's path"),
        field(
            "value",
            64,
            64,
            "ack: bytes acked; rtt: the sample in ns; sent: bytes; int: the hop's queue length in bytes",
        ),
        field(
            "time_ns",
            128,
            64,
            "when the signal happened (timers due by then run first)",
        ),
        field(
            "tx_bytes",
            192,
            64,
            "int: the bytes the hop's egress port had sent in total",
        ),
        field("ts_ns", 256, 64, "int: the switch's time in ns when the packet left"),
        field("rate_bps", 320, 64, "int: the egress link's rate in bit/s"),
    ]
}

/// Width of a `cc_update_out` record.
pub const CC_UPDATE_BITS: u32 = 128;

/// The top-function ports of a congestion controller's kernel (`crate::writer::cc`).
pub fn cc_ports(ctrl_data_bits: u32) -> Vec<Port> {
    use Direction::*;
    let mut ports = vec![
        record(
            "cc_event_in",
            Role::CcEventIn,
            In,
            CC_EVENT_BITS,
            cc_event_fields(),
            "congestion signals, one record per event, in time order",
        ),
        record(
            "cc_update_out",
            Role::CcUpdateOut,
            Out,
            CC_UPDATE_BITS,
            vec![
                field("flow", 0, 32, "the flow's slot"),
                field("value", 64, 64, "its rate in bit/s or window in bytes"),
            ],
            "the flow's output after every handler run and every event",
        ),
    ];
    ports.extend(common(ctrl_data_bits).into_iter().map(|mut p| {
        if p.role == Role::NowNs {
            p.doc = "the shell's clock in ns; an invocation without an event fires the timers \
                     due by then";
        }
        p
    }));
    ports
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_path_ports() {
        let ports = top_ports(Attach::SlowPath, 256);
        let names: Vec<&str> = ports.iter().map(|p| p.name).collect();
        assert_eq!(
            names,
            [
                "net_in",
                "net_in_meta",
                "net_out",
                "net_out_meta",
                "host_out",
                "scu_out",
                "scu_out_meta",
                "notify_out",
                "ctrl_in",
                "ctrl_out",
                "now_ns"
            ]
        );
        let ctrl = ports.iter().find(|p| p.name == "ctrl_in").expect("ctrl_in");
        assert_eq!(ctrl.width, 256 + 56);
        for p in &ports {
            for f in &p.fields {
                assert!(f.lo + f.width <= p.width, "{}.{}", p.name, f.name);
            }
            if p.interface != Interface::ApNone {
                assert_eq!(p.width % 8, 0, "{}: TDATA is whole bytes", p.name);
            }
        }
    }

    #[test]
    fn stream_ports() {
        let ports = top_ports(Attach::Rdma, 128);
        assert_eq!(ports[0].name, "word_in");
        assert!(ports.iter().any(|p| p.role == Role::CtrlIn));
    }
}
