//! The reviews this coordinator is finalizing right now, so that the
//! gatherer and the sweeper never verify and render one review twice at the
//! same time. A call that finds the review claimed asks the holder to look
//! once more when it is done (the lane that settled meanwhile may be the
//! last one), and returns at once.

use revu_domain::lane::ReviewId;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// Per review being finalized here: whether another call came meanwhile.
#[derive(Debug, Default, Clone)]
pub(super) struct Finalizing(Arc<Mutex<HashMap<ReviewId, bool>>>);

/// This call's hold on a review; dropping it releases the review.
pub(super) struct Claim<'a> {
    owner: &'a Finalizing,
    id: ReviewId,
}

impl Finalizing {
    fn lock(&self) -> MutexGuard<'_, HashMap<ReviewId, bool>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The review for this call, or `None` when another call holds it
    /// (which then looks again before it lets go).
    pub(super) fn claim(&self, id: &ReviewId) -> Option<Claim<'_>> {
        let mut held = self.lock();
        if let Some(again) = held.get_mut(id) {
            *again = true;
            return None;
        }
        held.insert(id.clone(), false);
        Some(Claim {
            owner: self,
            id: id.clone(),
        })
    }
}

impl Claim<'_> {
    /// Whether another call came while this one held the review (and
    /// clears that, so each such call costs one more look).
    pub(super) fn asked_again(&self) -> bool {
        self.owner
            .lock()
            .get_mut(&self.id)
            .is_some_and(std::mem::take)
    }
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        self.owner.lock().remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_call_waits_for_the_holder_to_look_again() {
        let finalizing = Finalizing::default();
        let id = ReviewId("r-1".to_owned());
        let Some(claim) = finalizing.claim(&id) else {
            panic!("nobody holds the review yet");
        };
        assert!(finalizing.claim(&id).is_none(), "held by the first call");
        assert!(claim.asked_again(), "the second call asked");
        assert!(!claim.asked_again(), "once per call");
        drop(claim);
        assert!(finalizing.claim(&id).is_some(), "released on drop");
    }
}
