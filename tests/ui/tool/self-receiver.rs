use pedelec::{tool};

struct Browser;

impl Browser {
    /// Opens a page.
    #[tool]
    fn open_page(&self) -> bool {
        true
    }
}

fn main() {
    assert!(Browser.open_page());
}
