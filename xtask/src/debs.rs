//! Debian packages the benchmarks run (Redis, nginx), installed without root into
//! `target/debs/` (or `$CARGO_TARGET_DIR/debs/`): `apt-get download` of pinned upstream
//! versions and `dpkg-deb -x`, nothing installed system-wide. Idempotent: a tree whose
//! `.complete` marker is there is used as it is.
//!
//! The pin is the upstream version (`7.0.15`): Debian's security updates replace a
//! package's revision (`5:7.0.15-1~deb12u10` → `…u11`) and drop the old one from the
//! archive, so the newest revision of the pinned upstream version is taken.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A Debian package at an upstream version.
#[derive(Clone, Copy, Debug)]
pub struct Deb {
    /// The package's name.
    pub package: &'static str,
    /// Its upstream version (no epoch, no Debian revision).
    pub upstream: &'static str,
}

/// Redis: the server's binary is in `redis-tools` (as `redis-check-rdb`: the name it is
/// started by picks the program), `redis-server` adds the `redis-server` link (and service
/// files, not used), and the two libraries it needs that a base system lacks.
pub const REDIS: (&str, &[Deb]) = (
    "redis-7.0.15",
    &[
        Deb {
            package: "redis-server",
            upstream: "7.0.15",
        },
        Deb {
            package: "redis-tools",
            upstream: "7.0.15",
        },
        Deb {
            package: "libjemalloc2",
            upstream: "5.3.0",
        },
        Deb {
            package: "liblzf1",
            upstream: "3.6",
        },
    ],
);

/// nginx: its binary needs only libraries a base system has (`nginx-common` holds the
/// service's configuration, which is not used: the benchmarks write their own).
pub const NGINX: (&str, &[Deb]) = (
    "nginx-1.22.1",
    &[Deb {
        package: "nginx",
        upstream: "1.22.1",
    }],
);

/// An extracted tree of packages.
#[derive(Clone, Debug)]
pub struct Tree {
    /// Where the packages were extracted (`…/root`, holding `usr/…`).
    pub root: PathBuf,
}

impl Tree {
    /// A program of the tree (`usr/bin/redis-server`).
    pub fn bin(&self, path: &str) -> PathBuf {
        self.root.join(path)
    }

    /// The tree's library directories, for `LD_LIBRARY_PATH`.
    pub fn library_path(&self) -> String {
        let lib = self.root.join("usr/lib");
        let mut dirs = vec![lib.clone()];
        if let Ok(entries) = std::fs::read_dir(&lib) {
            dirs.extend(
                entries
                    .filter_map(Result::ok)
                    .map(|e| e.path())
                    .filter(|p| {
                        p.is_dir()
                            && p.file_name()
                                .is_some_and(|n| n.to_string_lossy().contains("-linux-gnu"))
                    }),
            );
        }
        let dirs: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
        dirs.join(":")
    }
}

/// Installs Redis (idempotent) and writes `target/debs/redis-server`, a script that starts
/// it with its libraries (the store tests run it: `redis-server --port N …`).
pub fn install_redis(root: &Path) -> Result<PathBuf, String> {
    let tree = install(root, REDIS)?;
    let script = debs_dir(root).join("redis-server");
    let text = format!(
        "#!/bin/sh\n# Written by `cargo xtask redis`: Debian's {} from {}.\nLD_LIBRARY_PATH={} exec {} \"$@\"\n",
        REDIS.0,
        tree.root.display(),
        tree.library_path(),
        tree.bin("usr/bin/redis-server").display()
    );
    std::fs::write(&script, text).map_err(|e| format!("cannot write {}: {e}", script.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| format!("cannot make {} executable: {e}", script.display()))?;
    }
    Ok(script)
}

/// `<target dir>/debs`.
pub fn debs_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| root.join("target"), PathBuf::from)
        .join("debs")
}

/// Downloads and extracts `debs` into `target/debs/<name>/root` unless already there (its
/// `.complete` marker lists the same packages).
pub fn install(root: &Path, (name, debs): (&str, &[Deb])) -> Result<Tree, String> {
    let dir = debs_dir(root).join(name);
    let tree = Tree {
        root: dir.join("root"),
    };
    let marker = dir.join(".complete");
    if std::fs::read_to_string(&marker).is_ok_and(|m| complete(&m, debs)) {
        return Ok(tree);
    }
    let downloads = dir.join("downloads");
    // A half-done earlier attempt is started again.
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&downloads)
        .map_err(|e| format!("cannot create {}: {e}", downloads.display()))?;
    let mut updated = false;
    let mut versions = Vec::new();
    for deb in debs {
        let version = match available(deb)? {
            Some(v) => v,
            None if !updated => {
                // The package lists may be missing or old (a new machine).
                println!(
                    "debs: `apt-get update` (no {} {} listed)",
                    deb.package, deb.upstream
                );
                updated = true;
                let _ = Command::new("apt-get").args(["update", "-qq"]).status();
                available(deb)?.ok_or_else(|| not_found(deb))?
            }
            None => return Err(not_found(deb)),
        };
        println!("debs: {}={version} -> {}", deb.package, dir.display());
        let out = Command::new("apt-get")
            .args(["download", "-qq", "-o", "APT::Sandbox::User=root"])
            .arg(format!("{}={version}", deb.package))
            .current_dir(&downloads)
            .output()
            .map_err(|e| format!("cannot run apt-get (is this Debian?): {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "cannot fetch the Debian package `{}` version {version}: {}",
                deb.package,
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        let file = std::fs::read_dir(&downloads)
            .map_err(|e| e.to_string())?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .find(|p| {
                p.file_name().is_some_and(|n| {
                    n.to_string_lossy()
                        .starts_with(&format!("{}_", deb.package))
                })
            })
            .ok_or_else(|| format!("apt-get downloaded no .deb of `{}`", deb.package))?;
        super::run(
            Command::new("dpkg-deb")
                .arg("-x")
                .arg(&file)
                .arg(&tree.root),
        )?;
        versions.push(format!("{}={version}", deb.package));
    }
    std::fs::write(&marker, versions.join("\n") + "\n")
        .map_err(|e| format!("cannot write {}: {e}", marker.display()))?;
    Ok(tree)
}

/// Whether a `.complete` marker (`package=version` lines) lists exactly `debs`.
fn complete(marker: &str, debs: &[Deb]) -> bool {
    let listed: Vec<&str> = marker
        .lines()
        .filter_map(|l| l.split_once('=').map(|(p, _)| p))
        .collect();
    listed.len() == debs.len() && debs.iter().all(|d| listed.contains(&d.package))
}

fn not_found(deb: &Deb) -> String {
    format!(
        "cannot fetch the Debian package `{}` at upstream version {}: apt lists no such \
         version (`apt-cache madison {}` shows what it has; update the pin in xtask/src/debs.rs)",
        deb.package, deb.upstream, deb.package
    )
}

/// The newest version of `deb` apt can download, if any.
fn available(deb: &Deb) -> Result<Option<String>, String> {
    let out = Command::new("apt-cache")
        .args(["madison", deb.package])
        .output()
        .map_err(|e| format!("cannot run apt-cache (is this Debian?): {e}"))?;
    Ok(pick_version(
        &String::from_utf8_lossy(&out.stdout),
        deb.upstream,
    ))
}

/// The first (newest) version in `apt-cache madison` output whose upstream part is
/// `upstream`: `[epoch:]upstream[-revision]`.
pub fn pick_version(madison: &str, upstream: &str) -> Option<String> {
    madison.lines().find_map(|line| {
        let version = line.split('|').nth(1)?.trim();
        let without_epoch = version.split_once(':').map_or(version, |(_, v)| v);
        let up = without_epoch
            .rsplit_once('-')
            .map_or(without_epoch, |(u, _)| u);
        (up == upstream).then(|| version.to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers() {
        let marker = "redis-server=5:7.0.15-1\nredis-tools=5:7.0.15-1\nlibjemalloc2=5.3.0-1\nliblzf1=3.6-3\n";
        assert!(complete(marker, REDIS.1));
        assert!(!complete("redis-tools=5:7.0.15-1\n", REDIS.1));
        assert!(!complete("", NGINX.1));
        assert!(complete("nginx=1.22.1-9\n", NGINX.1));
    }

    #[test]
    fn picks_the_pinned_upstream_version() {
        let madison = "redis-tools | 5:7.2.4-1 | http://deb.example/debian trixie/main amd64 Packages\n\
                       redis-tools | 5:7.0.15-1~deb12u10 | http://deb.example/debian-security bookworm-security/updates/main amd64 Packages\n\
                       redis-tools | 5:7.0.15-1~deb12u9 | http://deb.example/debian bookworm/main amd64 Packages\n";
        assert_eq!(
            pick_version(madison, "7.0.15").as_deref(),
            Some("5:7.0.15-1~deb12u10")
        );
        assert_eq!(pick_version(madison, "7.0.1"), None);
        assert_eq!(
            pick_version("liblzf1 | 3.6-3 | http://x Packages", "3.6").as_deref(),
            Some("3.6-3")
        );
        // A native package has no revision.
        assert_eq!(
            pick_version("tzdata | 2024a | http://x Packages", "2024a").as_deref(),
            Some("2024a")
        );
        assert_eq!(pick_version("", "1"), None);
    }
}
