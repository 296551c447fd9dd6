//! [`ValidationOptions`]: how values are validated (read by the validator, the keyword
//! predicates and the fast path alike).

/// How values are validated. The default is plain JSON Schema 2020-12; a session validates
/// a call's arguments with both options on.
///
/// ```
/// use pedelec_core::schema::ValidationOptions;
/// let plain = ValidationOptions::new();
/// assert!(!plain.null_as_absent && !plain.assert_formats);
/// let session = ValidationOptions::new().null_as_absent(true).assert_formats(true);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ValidationOptions {
    /// A `null` given for a declared property that is not required counts as absent (models
    /// often send `null` for "not given"). The session turns it on.
    pub null_as_absent: bool,
    /// `format` is an assertion (a string must be a valid `date-time`, `email`, …) instead
    /// of an annotation (JSON Schema 2020-12's default). Unknown formats are always valid.
    /// The session turns it on: a tool that declares `format = "email"` gets email
    /// addresses (`docs/formats.md`).
    pub assert_formats: bool,
}

impl ValidationOptions {
    /// Plain JSON Schema 2020-12: `null` is a value, `format` is an annotation.
    #[must_use]
    pub const fn new() -> Self {
        ValidationOptions {
            null_as_absent: false,
            assert_formats: false,
        }
    }

    /// Sets [`null_as_absent`](Self::null_as_absent).
    #[must_use]
    pub const fn null_as_absent(mut self, on: bool) -> Self {
        self.null_as_absent = on;
        self
    }

    /// Sets [`assert_formats`](Self::assert_formats).
    #[must_use]
    pub const fn assert_formats(mut self, on: bool) -> Self {
        self.assert_formats = on;
        self
    }
}
