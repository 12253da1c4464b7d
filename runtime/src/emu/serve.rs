//! [`serve`]: the emulated NIC running, the register map served on one thread and the datapath
//! ([`Datapath`]) on another over the ports and host side it is given, the models behind every
//! slot. `scenic nic up` (`crate::nic`) gives it `AF_PACKET` ports and a TAP;
//! [`super::thread::EmuThread::start_wired`] gives it in-process [`crate::net::Wire`]s.
//!
//! Invariant: when either thread ends (a stop request or a failure) the other is stopped too, so a
//! map never looks alive without its datapath.

use std::sync::atomic::{AtomicBool, Ordering};

use super::banks::{Banks, ModelEngine};
use super::EmuServer;
use crate::net::{Datapath, DatapathConfig, FrameIo};
use crate::region::RegionError;

/// Serves `server`'s map and runs the datapath over `ports` (port 0 first) and `host` until `stop`
/// is set or either side fails (which sets `stop`); `ready` is called once both are set up. The
/// engines of every slot run on `banks` (the models `enable_models` turned on).
pub fn serve(
    server: &mut EmuServer,
    banks: Banks,
    ports: Vec<Box<dyn FrameIo>>,
    host: Box<dyn FrameIo>,
    stop: &AtomicBool,
    ready: impl FnOnce(),
) -> Result<(), RegionError> {
    let slots = server.config().scu_slots;
    let dp_config = DatapathConfig {
        scu_slots: slots,
        ..DatapathConfig::default()
    };
    let mut datapath = Datapath::new(
        server.shared_region(),
        dp_config,
        ports,
        host,
        server.reset_generation(),
    );
    for k in 0..slots {
        datapath.set_engine(k, Box::new(ModelEngine::new(banks.clone(), k)));
    }
    server.set_fence_gate(datapath.fence_gate());
    if let Some(waker) = datapath.waker() {
        server.set_fence_waker(waker);
    }
    ready();
    let freeze = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let dp = scope.spawn(|| {
            let out = datapath.run(stop);
            // A failed datapath stops the device: the map must not look alive without it.
            stop.store(true, Ordering::Release);
            out
        });
        let served = server.run(stop, &freeze);
        stop.store(true, Ordering::Release);
        let carried = dp.join().unwrap_or(Ok(()));
        served.and(carried)
    })
}
