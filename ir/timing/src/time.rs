//! Ready times: when a value is available, which operation made it late, and how long it has been
//! since it was read from each stateful object.
//!
//! The scheduler gives every value a [`Time`]: the cycle (after the body starts) at which it is
//! available, ASAP. Each time also remembers the last costly operation on its critical path (a node of
//! a [`Trail`], so the chain of operations that decided a latency can be read back for diagnostics) and,
//! for every stateful object whose value it was computed from, the length of the longest dependency
//! chain since that read. When the value is written back into the same object, that length is the
//! loop-carried recurrence, which bounds the initiation interval (the `RecMII` of modulo scheduling).

use scenic_ir::entities::{CsrId, MapId};
use scenic_ir::span::Span;

/// A stateful object: something a body reads and writes that survives from one run to the next, so a
/// read-modify-write of it is a loop-carried dependency between consecutive packets, words or events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Obj {
    /// A CSR written by the program (a register).
    Csr(CsrId),
    /// A map (registers or BRAM, see [`super::cost::map_storage`]).
    Map(MapId),
    /// The per-flow state record of the enclosing cc.
    FlowState,
}

/// An index into a [`Trail`].
pub(crate) type NodeId = u32;

/// One costly operation on some critical path.
#[derive(Clone, Debug)]
pub(crate) struct Node {
    /// What the operation is ("multiply 64×16 bits").
    pub what: String,
    /// Where it was written.
    pub span: Span,
    /// Its cost in cycles.
    pub cycles: u32,
    /// The costly operation before it on the same path.
    pub prev: Option<NodeId>,
}

/// The arena of costly operations of one analysis.
#[derive(Clone, Debug, Default)]
pub(crate) struct Trail {
    nodes: Vec<Node>,
}

impl Trail {
    /// Adds a node and returns its id.
    pub fn push(&mut self, node: Node) -> NodeId {
        self.nodes.push(node);
        u32::try_from(self.nodes.len() - 1).unwrap_or(u32::MAX)
    }

    /// The operations on the path ending at `node`, first operation first.
    pub fn path(&self, node: Option<NodeId>) -> Vec<&Node> {
        let mut out = Vec::new();
        let mut cur = node;
        while let Some(id) = cur {
            let Some(n) = self.nodes.get(id as usize) else {
                break;
            };
            out.push(n);
            cur = n.prev;
        }
        out.reverse();
        out
    }
}

/// When a value is ready, and what it depends on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Time {
    /// The cycle at which the value is available.
    pub at: u32,
    /// The last costly operation on its critical path.
    pub node: Option<NodeId>,
    /// For each stateful object the value was computed from: the longest chain (in cycles) from the
    /// read of that object to this value. Sorted by object, one entry per object.
    pub deps: Vec<(Obj, u32)>,
    /// Whether the value is a compile-time constant (operations on constants cost nothing: they fold).
    pub konst: bool,
}

impl Time {
    /// Available at cycle 0, a run-time value.
    pub fn zero() -> Time {
        Time::default()
    }

    /// A constant.
    pub fn constant() -> Time {
        Time {
            konst: true,
            ..Time::default()
        }
    }

    /// A value read from `obj`, available `latency` cycles after the read was issued at `issue`.
    pub fn read_of(obj: Obj, issue: &Time, latency: u32) -> Time {
        let mut t = issue.clone();
        t.konst = false;
        t.delay(latency, None);
        t.add_dep(obj, latency);
        t
    }

    /// Makes `self` the later of the two (a value computed from both). Constant only if both are.
    pub fn join(&mut self, other: &Time) {
        if other.at > self.at {
            self.at = other.at;
            self.node = other.node;
        } else if self.node.is_none() && other.at == self.at {
            self.node = other.node;
        }
        for &(obj, d) in &other.deps {
            self.add_dep(obj, d);
        }
        self.konst = self.konst && other.konst;
    }

    /// The later of two times.
    pub fn max(a: &Time, b: &Time) -> Time {
        let mut t = a.clone();
        t.join(b);
        t
    }

    /// Adds `cycles` of latency (every dependency chain grows by the same amount); `node` is the
    /// operation that costs them.
    pub fn delay(&mut self, cycles: u32, node: Option<NodeId>) {
        if cycles == 0 {
            return;
        }
        self.at = self.at.saturating_add(cycles);
        if node.is_some() {
            self.node = node;
        }
        for dep in &mut self.deps {
            dep.1 = dep.1.saturating_add(cycles);
        }
    }

    /// Records a chain of `len` cycles from a read of `obj` (keeping the longer one).
    pub fn add_dep(&mut self, obj: Obj, len: u32) {
        match self.deps.binary_search_by_key(&obj, |d| d.0) {
            Ok(i) => self.deps[i].1 = self.deps[i].1.max(len),
            Err(i) => self.deps.insert(i, (obj, len)),
        }
    }

    /// The chain from a read of `obj` to this value, if the value depends on one.
    pub fn dep(&self, obj: Obj) -> Option<u32> {
        self.deps
            .binary_search_by_key(&obj, |d| d.0)
            .ok()
            .map(|i| self.deps[i].1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_keeps_the_later_time_and_every_dependency() {
        let mut a = Time::read_of(Obj::FlowState, &Time::zero(), 2);
        let mut b = Time::zero();
        b.delay(5, Some(7));
        b.add_dep(Obj::Map(MapId::from_u32(0)), 1);
        a.join(&b);
        assert_eq!(a.at, 5);
        assert_eq!(a.node, Some(7));
        assert_eq!(a.dep(Obj::FlowState), Some(2));
        assert_eq!(a.dep(Obj::Map(MapId::from_u32(0))), Some(1));
        a.delay(3, None);
        assert_eq!(a.dep(Obj::FlowState), Some(5));
        assert!(!a.konst);
    }

    #[test]
    fn constants_stay_constant_only_together() {
        let mut c = Time::constant();
        c.join(&Time::constant());
        assert!(c.konst);
        c.join(&Time::zero());
        assert!(!c.konst);
    }

    #[test]
    fn trail_reads_back_in_order() {
        let mut trail = Trail::default();
        let span = Span::default();
        let a = trail.push(Node {
            what: "a".into(),
            span,
            cycles: 1,
            prev: None,
        });
        let b = trail.push(Node {
            what: "b".into(),
            span,
            cycles: 2,
            prev: Some(a),
        });
        let names: Vec<&str> = trail
            .path(Some(b))
            .iter()
            .map(|n| n.what.as_str())
            .collect();
        assert_eq!(names, ["a", "b"]);
    }
}
