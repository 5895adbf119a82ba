//! Independent pieces of work on every core, their results in the order of
//! the pieces: the same output as a sequential map whatever the scheduling,
//! as long as the work on a piece depends on that piece only.
//!
//! [`map`] lets each thread take the next piece not yet taken (a shared
//! counter), so a slow stratum does not leave a core idle while another
//! thread still holds a fixed share; [`map_mut`], for work that takes its
//! piece apart, gives each thread one contiguous share.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Threads for `pieces` pieces of work: one per core, at most one per piece.
fn threads_for(pieces: usize) -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(pieces)
}

/// `items.iter().map(work).collect()`, computed on up to every core.
pub(crate) fn map<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = threads_for(items.len());
    if threads <= 1 {
        return items.iter().map(work).collect();
    }
    let next = AtomicUsize::new(0);
    let done: Vec<Vec<(usize, R)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(k) else { break };
                        mine.push((k, work(item)));
                    }
                    mine
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a worker thread panicked"))
            .collect()
    });
    let mut slots: Vec<Option<R>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    for (k, r) in done.into_iter().flatten() {
        slots[k] = Some(r);
    }
    slots
        .into_iter()
        .map(|r| r.expect("every piece is taken once"))
        .collect()
}

/// `items.iter_mut().map(work).collect()`, computed on up to every core, each
/// thread on one contiguous share of the items.
pub(crate) fn map_mut<T: Send, R: Send>(
    items: &mut [T],
    work: impl Fn(&mut T) -> R + Sync,
) -> Vec<R> {
    let threads = threads_for(items.len());
    if threads <= 1 {
        return items.iter_mut().map(work).collect();
    }
    let share = items.len().div_ceil(threads);
    let work = &work;
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks_mut(share)
            .map(|part| scope.spawn(move || part.iter_mut().map(work).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a worker thread panicked"))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_keep_the_order_of_the_pieces() {
        let items: Vec<u64> = (0..1000).collect();
        // Uneven work, so that threads finish pieces out of order.
        let squares = super::map(&items, |&i| {
            let spins = (i * 7919) % 5000;
            for _ in 0..spins {
                std::hint::black_box(i);
            }
            i * i
        });
        assert_eq!(squares, items.iter().map(|i| i * i).collect::<Vec<_>>());
        assert!(super::map(&[] as &[u64], |&i| i).is_empty());
    }

    #[test]
    fn map_mut_keeps_the_order_and_may_take_the_pieces_apart() {
        let mut items: Vec<String> = (0..1001).map(|i| i.to_string()).collect();
        let taken = super::map_mut(&mut items, std::mem::take);
        assert_eq!(taken, (0..1001).map(|i| i.to_string()).collect::<Vec<_>>());
        assert!(items.iter().all(String::is_empty));
    }
}
