//! [`simulate_into`] and [`simulate`] against a reference: the per-packet loop they replaced (a
//! fresh outcome per packet from `Machine::process_packet`, a fresh word outcome per payload word),
//! on examples that drop, send to several ports and the host, pass payload on and complete DMA
//! transfers.

use super::*;
use crate::payload::roce_payload;

fn lower(name: &str, text: &str) -> Module {
    let mut session = scenic_frontend::Session::new();
    session.add_source(name, text);
    scenic_lower::lower_session(&mut session).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// An Ethernet/IPv4 packet to `dst` with `ttl`, `len` bytes long.
fn ipv4(dst: [u8; 4], ttl: u8, len: usize) -> Vec<u8> {
    let len = len.max(34);
    let mut p = vec![0u8; len];
    p[12] = 0x08;
    p[14] = 0x45;
    p[16..18].copy_from_slice(&((len - 14) as u16).to_be_bytes());
    p[22] = ttl;
    p[23] = 17;
    p[26..30].copy_from_slice(&[10, 9, 9, 9]);
    p[30..34].copy_from_slice(&dst);
    p
}

/// An ARP request (the router hands it to the host).
fn arp() -> Vec<u8> {
    let mut p = vec![0u8; 42];
    p[..6].fill(0xff);
    p[12..14].copy_from_slice(&[0x08, 0x06]);
    p[14..22].copy_from_slice(&[0, 1, 8, 0, 6, 4, 0, 1]);
    p
}

/// A RoCEv2 packet (Ethernet/IPv4/UDP 4791/BTH) of `opcode` to queue pair `qp`, with `payload`.
fn roce(opcode: u8, qp: u8, payload: &[u8]) -> Vec<u8> {
    let mut p = vec![0u8; 14 + 20 + 8 + 12];
    p[12] = 0x08;
    p[14] = 0x45;
    p[23] = 17;
    p[36..38].copy_from_slice(&4791u16.to_be_bytes());
    p[42] = opcode;
    p[49] = qp;
    p.extend_from_slice(payload);
    p.extend_from_slice(&[0xee; 4]);
    let ip_len = (p.len() - 14) as u16;
    p[16..18].copy_from_slice(&ip_len.to_be_bytes());
    p
}

/// What the reference loop produced: packets out, drops by reason, transfers, traces.
#[derive(Debug, Default, PartialEq)]
struct Collected {
    packets: Vec<OutPacket>,
    dropped: BTreeMap<String, u64>,
    transfers: Vec<(u64, DmaTransfer)>,
    traces: Vec<(usize, Vec<String>)>,
}

/// The loop `simulate` ran before it streamed: a new outcome per packet and per word.
fn reference(module: &Module, packets: &[(u64, Vec<u8>)], trace: bool) -> Collected {
    let mut m = Machine::new(module);
    m.trace = trace;
    let scu = setup::pick_scu(module, None).unwrap_or_else(|e| panic!("{e}"));
    let def = &module.scus[scu];
    let mut c = Collected::default();
    for (n, (ts, data)) in packets.iter().enumerate() {
        if def.control.is_some() || def.attach == Attach::SlowPath {
            let o = m.process_packet(scu, data, 0, *ts);
            if !o.trace.is_empty() {
                c.traces.push((n + 1, o.trace));
            }
            match o.dropped {
                Some(r) => *c.dropped.entry(r).or_insert(0) += 1,
                None => c
                    .packets
                    .extend(o.outputs.into_iter().map(|(d, data)| OutPacket {
                        ts_ns: *ts,
                        port: port_of(&d),
                        data,
                    })),
            }
        }
        let Some(Payload { flow, range, last }) = roce_payload(data) else {
            continue;
        };
        let chunks: Vec<&[u8]> = data[range.clone()].chunks(64).collect();
        let mut passed = Vec::new();
        for (i, chunk) in chunks.iter().enumerate() {
            let (word, keep) = bytes_word(chunk);
            let o = m.process_word(scu, flow, &word, last && i + 1 == chunks.len(), keep, *ts);
            for (w, k) in &o.passed {
                passed.extend(word_bytes(w, *k));
            }
            c.transfers
                .extend(o.transfers.into_iter().map(|t| (*ts, t)));
        }
        if !passed.is_empty() {
            let mut out = data.clone();
            let end = (range.start + passed.len()).min(out.len());
            out[range.start..end].copy_from_slice(&passed[..end - range.start]);
            c.packets.push(OutPacket {
                ts_ns: *ts,
                port: PASS_PORT,
                data: out,
            });
        }
    }
    c
}

/// Runs `packets` through [`simulate_into`], collecting its events, and through [`simulate`];
/// checks both against the reference and each other; returns the streaming run's summary.
fn check_against_reference(module: &Module, packets: &[(u64, Vec<u8>)], trace: bool) -> Summary {
    let expected = reference(module, packets, trace);
    let options = SimOptions { scu: None, trace };
    let input = || packets.iter().map(|(ts, p)| (*ts, p.as_slice()));
    let mut streamed = Collected::default();
    let summary = simulate_into(module, input(), None, &[], &options, |event| {
        match event {
            Event::Trace { n, lines } => streamed.traces.push((n, lines.to_vec())),
            Event::Packet { ts_ns, port, data } => streamed.packets.push(OutPacket {
                ts_ns,
                port,
                data: data.to_vec(),
            }),
            Event::Transfer { ts_ns, transfer } => streamed.transfers.push((ts_ns, transfer)),
        }
        Ok::<(), ()>(())
    })
    .unwrap_or_else(|e| panic!("{e:?}"));
    streamed.dropped = summary.dropped.clone();
    assert_eq!(streamed, expected);
    let collected =
        simulate(module, input(), None, &[], &options).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(collected.summary, summary);
    assert_eq!(collected.packets, expected.packets);
    assert_eq!(collected.transfers, expected.transfers);
    assert_eq!(collected.traces, expected.traces);
    let mut per_port = BTreeMap::new();
    for p in &expected.packets {
        *per_port.entry(p.port).or_insert(0u64) += 1;
    }
    assert_eq!(summary.out_per_port, per_port);
    assert_eq!(summary.transfers, expected.transfers.len() as u64);
    assert_eq!(summary.packets_in, packets.len() as u64);
    summary
}

fn router_traffic() -> Vec<(u64, Vec<u8>)> {
    let packets = [
        ipv4([10, 1, 2, 3], 64, 80),
        ipv4([10, 2, 0, 1], 64, 200),
        ipv4([10, 1, 0, 9], 1, 60),
        arp(),
        ipv4([192, 168, 1, 1], 64, 1500),
        ipv4([8, 8, 8, 8], 64, 64),
        ipv4([10, 1, 0, 9], 0, 60),
        vec![0u8; 20],
        ipv4([10, 0, 0, 1], 64, 60),
        ipv4([10, 1, 2, 3], 1, 90),
        vec![0x08; 13],
    ];
    // Repeated, so that reused buffers and drop reasons counted before are exercised.
    (0..5)
        .flat_map(|_| packets.iter().cloned())
        .enumerate()
        .map(|(i, p)| (1_000_000_000 + i as u64 * 1_000, p))
        .collect()
}

#[test]
fn streaming_matches_the_per_packet_loop_on_a_router_with_drops_and_several_ports() {
    let module = lower(
        "l3_router.sn",
        include_str!("../../../../examples/l3_router.sn"),
    );
    for trace in [false, true] {
        let summary = check_against_reference(&module, &router_traffic(), trace);
        assert!(summary.out_per_port.len() >= 4, "{summary:?}");
        assert!(summary.dropped.len() >= 2, "{summary:?}");
        assert!(summary.dropped.values().all(|n| *n >= 5), "{summary:?}");
    }
}

#[test]
fn streaming_matches_the_per_packet_loop_on_payload_streams() {
    let payload: Vec<u8> = (0..=255u8).cycle().take(300).collect();
    let packets: Vec<(u64, Vec<u8>)> = [0x00, 0x01, 0x02, 0x04, 0x04, 0x00, 0x02]
        .iter()
        .enumerate()
        .map(|(i, op)| {
            (
                i as u64 * 100,
                roce(*op, 7 + (i % 2) as u8, &payload[..64 + i * 33]),
            )
        })
        .collect();
    let xor = lower(
        "xor_cipher.sn",
        include_str!("../../../../examples/xor_cipher.sn"),
    );
    let summary = check_against_reference(&xor, &packets, false);
    assert!(
        summary.out_per_port.get(&PASS_PORT).is_some_and(|n| *n > 0),
        "{summary:?}"
    );
    let partition = lower(
        "partition.sn",
        include_str!("../../../../examples/partition.sn"),
    );
    let summary = check_against_reference(&partition, &packets, false);
    assert!(summary.transfers > 0, "{summary:?}");
    assert!(summary.words > 0, "{summary:?}");
}

#[test]
fn a_sink_error_stops_the_simulation_there() {
    let module = lower(
        "l3_router.sn",
        include_str!("../../../../examples/l3_router.sn"),
    );
    let traffic = router_traffic();
    let mut seen = 0;
    let result = simulate_into(
        &module,
        traffic.iter().map(|(ts, p)| (*ts, p.as_slice())),
        None,
        &[],
        &SimOptions::default(),
        |_| {
            seen += 1;
            if seen == 3 {
                Err("disk full")
            } else {
                Ok(())
            }
        },
    );
    assert!(
        matches!(result, Err(StreamError::Sink("disk full"))),
        "{result:?}"
    );
    assert_eq!(seen, 3);
}

#[test]
fn a_time_jump_is_refused_with_the_packet_it_happened_at() {
    let module = lower(
        "flow_monitor.sn",
        include_str!("../../../../examples/flow_monitor.sn"),
    );
    // flow_monitor runs `every 10ms`: a step of 10^6 periods is the most allowed.
    let period = 10_000_000;
    let limit = period * crate::MAX_CATCH_UP_RUNS;
    let run = |times: &[u64]| {
        let packet = [0u8; 60];
        simulate_into(
            &module,
            times.iter().map(|ts| (*ts, &packet[..])),
            None,
            &[],
            &SimOptions::default(),
            |_| Ok::<(), ()>(()),
        )
    };
    assert_eq!(run(&[5, 5 + limit]).ok().map(|s| s.packets_in), Some(2));
    let err = match run(&[5, 6, 6 + limit + period]) {
        Err(StreamError::Setup(e)) => e.to_string(),
        other => panic!("{other:?}"),
    };
    let expected = SetupError::TimeJump {
        at: ", at packet 3".into(),
        from_ns: 6,
        to_ns: 6 + limit + period,
        runs: crate::MAX_CATCH_UP_RUNS + 1,
        what: "`every 10000000 ns` of scu `flow_monitor`".into(),
        limit: crate::MAX_CATCH_UP_RUNS,
    };
    assert_eq!(err, expected.to_string());
    assert_eq!(
        crate::excessive_catch_up(&module, 6, 6 + limit + period),
        Some((
            crate::MAX_CATCH_UP_RUNS + 1,
            "`every 10000000 ns` of scu `flow_monitor`".into()
        ))
    );
}

#[test]
fn check_time_finds_the_jump_run_stops_at_without_running_a_packet() {
    let module = lower(
        "flow_monitor.sn",
        include_str!("../../../../examples/flow_monitor.sn"),
    );
    let limit = 10_000_000 * crate::MAX_CATCH_UP_RUNS;
    // A step back, then a small step, then two steps over the limit: the first one counts.
    let times = [
        100,
        50,
        150 + limit,
        150 + 2 * limit + 10_000_000,
        150 + 4 * limit,
    ];
    let mut steps = LargestStep::default();
    times.iter().for_each(|t| steps.push(*t));
    assert_eq!(steps.get(), 2 * limit - 10_000_000);
    let packet = [0u8; 60];
    let run = |times: &[u64]| {
        let sim = Simulation::new(&module, None, &[], &SimOptions::default())
            .unwrap_or_else(|e| panic!("{e}"));
        let checked = sim.check_time(steps.get(), times.iter().copied());
        let ran = sim.run(
            times.iter().map(|t| (*t, &packet[..])),
            |_| Ok::<(), ()>(()),
        );
        (
            checked.map_err(|e| e.to_string()),
            ran.map(|s| s.packets_in),
        )
    };
    let (checked, ran) = run(&times);
    let Err(StreamError::Setup(e)) = ran else {
        panic!("{ran:?}")
    };
    assert_eq!(checked, Err(e.to_string()));
    assert!(e.to_string().contains("at packet 4"), "{e}");
    let (checked, ran) = run(&times[..3]);
    assert_eq!((checked, ran.ok()), (Ok(()), Some(3)));
}

/// A long run does not keep the machine's log of notifications: `every 1ms` of the firewall raises
/// one per packet here, each counted in the summary, none left behind.
#[test]
fn the_notification_log_does_not_grow_with_the_capture() {
    let module = lower(
        "firewall.sn",
        include_str!("../../../../examples/firewall.sn"),
    );
    let mut run = Simulation::new(&module, None, &[], &SimOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let p = ipv4([10, 1, 0, 9], 64, 80);
    let mut sink = |_: Event<'_>| Ok::<(), ()>(());
    for n in 0..2_000u64 {
        run.sim
            .packet(n as usize + 1, n * 1_000_000, &p, &mut sink)
            .unwrap_or_else(|()| panic!("sink"));
    }
    assert_eq!(run.sim.summary.notifications, 1_999);
    assert!(run.sim.machine.notifications.len() <= 1);
}
