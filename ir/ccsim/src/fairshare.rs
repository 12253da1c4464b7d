//! Max-min fair shares by water-filling: what every active flow would get if the network shared
//! its links perfectly (Bertsekas and Gallager, *Data Networks*, §6.5.2).
//!
//! Every flow crosses the links of its route plus its own host link; capacities are payload rates
//! (a link's rate × mtu / (mtu + header), the payload share docs/cc-sim.md defines). Water-filling:
//! raise every unfrozen flow's share together; the first link to fill freezes its flows at
//! (its capacity − the frozen flows' shares) / (its unfrozen flows); repeat until every flow is
//! frozen. Flows are assumed greedy (every active flow wants more than its share).
//!
//! Invariants of the result: no link carries more than its capacity; every flow crosses at least
//! one full link on which no flow has a larger share (the definition of max-min fairness).

/// The max-min fair share of each flow. `routes[f]` lists the links flow `f` crosses (indices into
/// `capacity`), `None` for a flow that is not active (its share is 0); `cap[f]` is flow `f`'s own
/// limit (its host link).
pub fn max_min(routes: &[Option<&[u32]>], capacity: &[f64], cap: &[f64]) -> Vec<f64> {
    let n = routes.len();
    let mut share = vec![0.0; n];
    let mut frozen: Vec<bool> = routes.iter().map(Option::is_none).collect();
    let mut used = vec![0.0; capacity.len()];
    loop {
        let mut crossing = vec![0usize; capacity.len()];
        for route in (0..n).filter(|&f| !frozen[f]).filter_map(|f| routes[f]) {
            for &l in route {
                crossing[l as usize] += 1;
            }
        }
        // The next level: the fullest link's, or a flow's own limit if lower.
        let link_level = |l: usize| (capacity[l] - used[l]).max(0.0) / crossing[l] as f64;
        let links = (0..capacity.len()).filter(|&l| crossing[l] > 0);
        let flows = (0..n).filter(|&f| !frozen[f]);
        let level = links
            .map(link_level)
            .chain(flows.map(|f| cap[f]))
            .fold(f64::INFINITY, f64::min);
        if !level.is_finite() {
            return share;
        }
        let full: Vec<bool> = (0..capacity.len())
            .map(|l| crossing[l] > 0 && link_level(l) <= level)
            .collect();
        for f in 0..n {
            let Some(route) = routes[f].filter(|_| !frozen[f]) else {
                continue;
            };
            if cap[f] <= level || route.iter().any(|&l| full[l as usize]) {
                frozen[f] = true;
                share[f] = level;
                for &l in route {
                    used[l as usize] += level;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The parking lot of Bertsekas and Gallager: a long flow over two unit links, one cross flow
    /// on each: everyone gets 1/2. Make link 1 twice as fast: its cross flow takes the rest, 3/2.
    #[test]
    fn parking_lot_shares() {
        let (long, c0, c1) = ([0u32, 1], [0u32], [1u32]);
        let routes = [Some(&long[..]), Some(&c0[..]), Some(&c1[..])];
        let cap = [10.0; 3];
        assert_eq!(max_min(&routes, &[1.0, 1.0], &cap), vec![0.5, 0.5, 0.5]);
        assert_eq!(max_min(&routes, &[1.0, 2.0], &cap), vec![0.5, 0.5, 1.5]);
        // An inactive flow gets nothing and leaves its share to the others.
        let routes = [Some(&long[..]), None, Some(&c1[..])];
        assert_eq!(max_min(&routes, &[1.0, 1.0], &cap), vec![0.5, 0.0, 0.5]);
        // A flow's own limit binds below the link's share.
        assert_eq!(max_min(&[Some(&c0[..])], &[1.0], &[0.25]), vec![0.25]);
    }
}
