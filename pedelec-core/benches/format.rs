//! Cost of the `format` assertion per string, and of translating a `pattern`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use pedelec_core::schema::format::check_format;

const VALUES: &[(&str, &str)] = &[
    ("date-time", "1963-06-19T08:30:06.283185+01:00"),
    ("date", "2020-02-29"),
    ("duration", "P1Y2M3DT4H5M6S"),
    ("email", "joe.bloggs@example.com"),
    ("idn-email", "실례@실례.테스트"),
    ("hostname", "www.example.com"),
    ("hostname", "xn--9n2bp8q.xn--9t4b11yi5a"),
    ("idn-hostname", "실례.테스트"),
    ("ipv4", "192.168.0.1"),
    ("ipv6", "1:2::192.168.0.1"),
    ("uri", "http://foo.com/blah_(wikipedia)_blah?q=1#cite-1"),
    ("iri", "http://ƒøø.ßår/?∂éœ=πîx#πîüx"),
    (
        "uri-template",
        "http://example.com/dictionary/{term:1}/{term}",
    ),
    ("uuid", "2eb8aa08-aa98-11ea-b4aa-73b441d16380"),
    ("json-pointer", "/foo/bar~0/baz~1/%a"),
    ("regex", "^(?<year>\\d{4})-(?<month>\\d{2})$"),
];

fn formats(c: &mut Criterion) {
    let mut group = c.benchmark_group("check_format");
    for (format, value) in VALUES {
        assert_eq!(check_format(format, value), Some(true), "{format} {value}");
        group.bench_function(format!("{format}/{value}"), |b| {
            b.iter(|| check_format(black_box(format), black_box(value)));
        });
    }
    group.finish();
}

fn patterns(c: &mut Criterion) {
    let pattern = r"^[\p{L}\d_.-]+@(?:[a-z0-9-]+\.)+[a-z]{2,}$";
    c.bench_function("ecma::translate/email-like", |b| {
        b.iter(|| pedelec_rules::ecma::translate(black_box(pattern)));
    });
}

criterion_group!(benches, formats, patterns);
criterion_main!(benches);
