//! What one activation of a body needs: its locals, its precomputed constants, and the results of
//! the table applications it made (for `ActionData`).

use super::bits::Bits;
use super::value::{width_of, Value};
use crate::body::{Body, Expr};
use crate::entities::ExprId;
use crate::program::Module;
use cranelift_entity::EntityRef;
use std::collections::HashMap;
use std::sync::Arc;

/// Facts about a body computed once: constants as `Bits` and every expression's width.
#[derive(Debug, Default)]
pub struct BodyCache {
    /// The value of each `Const` expression.
    pub consts: Vec<Option<Bits>>,
    /// The scalar width of each expression (1 for aggregates).
    pub widths: Vec<u32>,
}

impl BodyCache {
    /// Precomputes `body`'s constants and widths.
    pub fn new(body: &Body, module: &Module) -> BodyCache {
        let mut cache = BodyCache {
            consts: Vec::with_capacity(body.exprs.len()),
            widths: Vec::with_capacity(body.exprs.len()),
        };
        for (id, expr) in body.exprs.iter() {
            let width = width_of(&body.types[id], module);
            cache.widths.push(width);
            cache.consts.push(match expr {
                Expr::Const(c) => Some(Bits::from_biguint(width, &c.0)),
                _ => None,
            });
        }
        cache
    }
}

/// Caches for every body of a module, by address (the module is borrowed for the machine's life, so
/// addresses are stable).
#[derive(Debug, Default)]
pub struct Caches {
    map: HashMap<usize, Arc<BodyCache>>,
}

impl Caches {
    /// The cache of `body`, computed on first use.
    pub fn get(&mut self, body: &Body, module: &Module) -> Arc<BodyCache> {
        let key = body as *const Body as usize;
        self.map
            .entry(key)
            .or_insert_with(|| Arc::new(BodyCache::new(body, module)))
            .clone()
    }
}

/// One activation of a body.
pub struct Frame<'b> {
    /// The code.
    pub body: &'b Body,
    /// Its constants and widths.
    pub cache: Arc<BodyCache>,
    /// Local values by `LocalId`.
    pub locals: Vec<Value>,
    /// Table applications made so far: the chosen action's position and its data.
    pub applies: HashMap<ExprId, (u32, Vec<Bits>)>,
}

impl<'b> Frame<'b> {
    /// A frame with every local zero.
    pub fn new(body: &'b Body, cache: Arc<BodyCache>, module: &Module) -> Frame<'b> {
        let locals = body
            .locals
            .values()
            .map(|l| Value::zero(&l.ty, module))
            .collect();
        Frame {
            body,
            cache,
            locals,
            applies: HashMap::new(),
        }
    }

    /// Sets parameter `i`.
    pub fn set_param(&mut self, i: usize, value: Value) {
        if let Some(local) = self.body.params.get(i) {
            if let Some(slot) = self.locals.get_mut(local.index()) {
                *slot = value;
            }
        }
    }

    /// The width of expression `id`.
    pub fn width(&self, id: ExprId) -> u32 {
        self.cache.widths.get(id.index()).copied().unwrap_or(1)
    }
}
