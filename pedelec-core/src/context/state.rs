//! [`StateMap`]: the application state a session shares with its handlers, one value per
//! type.

use std::any::{Any, TypeId};
use std::fmt;
use std::sync::Arc;

/// Shared application state registered on a session, one value per type.
#[derive(Clone, Default)]
pub struct StateMap {
    /// A handful of values at most: a scan of their `TypeId`s is cheaper than hashing (a
    /// handler looks its state up on every call).
    values: Vec<(TypeId, Arc<dyn Any + Send + Sync>)>,
}

impl StateMap {
    /// Registers `value`, replacing an earlier value of the same type.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        self.insert_arc(Arc::new(value));
    }

    /// Registers a shared value, replacing an earlier value of the same type.
    pub fn insert_arc<T: Send + Sync + 'static>(&mut self, value: Arc<T>) {
        let id = TypeId::of::<T>();
        match self.values.iter_mut().find(|(t, _)| *t == id) {
            Some((_, slot)) => *slot = value,
            None => self.values.push((id, value)),
        }
    }

    fn find<T: 'static>(&self) -> Option<&Arc<dyn Any + Send + Sync>> {
        let id = TypeId::of::<T>();
        self.values.iter().find(|(t, _)| *t == id).map(|(_, v)| v)
    }

    /// The value of type `T`, if one was registered.
    #[must_use]
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.find::<T>()?.downcast_ref()
    }

    /// The value of type `T` as a shared pointer, if one was registered.
    #[must_use]
    pub fn get_arc<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.find::<T>()?.clone().downcast().ok()
    }

    /// The number of registered values.
    #[must_use]
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// `true` when nothing is registered.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

impl fmt::Debug for StateMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateMap")
            .field("len", &self.values.len())
            .finish()
    }
}
