//! `lore deps --fetch`: a published archive downloaded, checked against the lockfile's digest
//! and unpacked beside its target, then renamed into place (nothing is kept on a mismatch).

use super::{Dependency, Ecosystem, Located, go_escape};
use std::path::{Path, PathBuf};

/// Where `--fetch` downloads crates from: `LORE_CRATES_URL`, the registry's download URL
/// (the `dl` of its index's config.json), without a trailing slash.
pub fn crates_url() -> Option<String> {
    std::env::var("LORE_CRATES_URL")
        .ok()
        .filter(|u| !u.trim().is_empty())
        .map(|u| u.trim().trim_end_matches('/').to_string())
}

/// Largest archive downloaded.
const MAX_ARCHIVE: u64 = 64 * 1024 * 1024;

/// Downloads `dep`'s published archive, verifies it against the lockfile's digest and
/// unpacks it under `dest` (`dest/<name>-<version>`): a crate from `LORE_CRATES_URL`, an npm
/// tarball and a Python sdist from where the lockfile says (`resolved`, uv's `sdist`). An
/// archive whose digest differs, or that has none to check, is refused and nothing is kept.
pub fn fetch(dep: &Dependency, dest: &Path) -> Result<Located, String> {
    // The target is built from checked parts only, before any file is touched.
    dep.check()?;
    let folder = dep.folder();
    let target = dest.join(&folder);
    if target.parent() != Some(dest) {
        return Err(format!("{folder:?} is not one folder name; refused"));
    }
    if target.is_dir() {
        return Ok(Located {
            root: target,
            includes: Vec::new(),
        });
    }
    let Some(expected) = dep.checksum.as_deref() else {
        return Err(
            "the lockfile records no digest to verify the archive against; not fetched".into(),
        );
    };
    let url = match (dep.ecosystem, dep.archive.as_deref()) {
        (Ecosystem::Cargo, _) => {
            let Some(base) = crates_url() else {
                return Err("set LORE_CRATES_URL to the registry's download URL (the `dl` of its index's config.json) to fetch crates".into());
            };
            format!("{base}/{}/{}-{}.crate", dep.name, dep.name, dep.version)
        }
        (Ecosystem::Npm | Ecosystem::Python, Some(url)) => url.to_string(),
        (Ecosystem::Npm | Ecosystem::Python, None) => {
            return Err(
                "the lockfile names no archive to fetch (uv.lock's sdist, package-lock's resolved)"
                    .into(),
            );
        }
        (Ecosystem::Go, _) => {
            let Some(proxy) = go_proxy() else {
                return Err("set GOPROXY to a module proxy URL to fetch Go modules".into());
            };
            format!("{proxy}/{}/@v/{}.zip", go_escape(&dep.name), dep.version)
        }
    };
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(std::time::Duration::from_secs(120)))
        .http_status_as_error(false)
        .user_agent(concat!("lore/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let mut resp = agent.get(&url).call().map_err(|e| format!("{url}: {e}"))?;
    if resp.status() != 200 {
        return Err(format!("{url}: HTTP {}", resp.status().as_u16()));
    }
    let bytes = resp
        .body_mut()
        .with_config()
        .limit(MAX_ARCHIVE)
        .read_to_vec()
        .map_err(|e| format!("{url}: {e}"))?;
    // Unpacked beside the target, then renamed: a failure leaves nothing behind.
    std::fs::create_dir_all(dest).map_err(|e| format!("{}: {e}", dest.display()))?;
    let tmp = dest.join(format!(".{folder}.{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    if dep.ecosystem == Ecosystem::Go {
        // A module zip's digest is over its files, not its bytes.
        let done = std::fs::create_dir_all(&tmp)
            .map_err(|e| e.to_string())
            .and_then(|_| unpack_go_zip(&bytes, dep, expected, &tmp, &target));
        let _ = std::fs::remove_dir_all(&tmp);
        done.map_err(|e| format!("{url}: {e}"))?;
        return Ok(Located {
            root: target,
            includes: Vec::new(),
        });
    }
    if let Err(why) = verify(&bytes, expected) {
        return Err(format!("{url}: {why}; refused, nothing kept"));
    }
    let unpacked = (|| -> Result<(), String> {
        std::fs::create_dir_all(&tmp).map_err(|e| e.to_string())?;
        let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(&bytes[..]));
        for entry in archive.entries().map_err(|e| e.to_string())? {
            let mut entry = entry.map_err(|e| e.to_string())?;
            // `unpack_in` refuses paths that leave the folder (`..`, absolute).
            if !entry.unpack_in(&tmp).map_err(|e| e.to_string())? {
                return Err("the archive holds a path outside its folder".into());
            }
        }
        // One top folder (`name-version/` for crates and sdists, `package/` for npm).
        let tops: Vec<PathBuf> = std::fs::read_dir(&tmp)
            .map_err(|e| e.to_string())?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_dir())
            .collect();
        let [inner] = &tops[..] else {
            return Err(format!(
                "the archive has {} top folders, not one",
                tops.len()
            ));
        };
        std::fs::rename(inner, &target).map_err(|e| e.to_string())
    })();
    let _ = std::fs::remove_dir_all(&tmp);
    unpacked.map_err(|e| format!("{url}: {e}; nothing kept"))?;
    Ok(Located {
        root: target,
        includes: Vec::new(),
    })
}

/// Whether `bytes` have the digest `expected`: SHA-256 hex (optionally `sha256:`-prefixed)
/// or an npm integrity string `sha512-<base64>`.
fn verify(bytes: &[u8], expected: &str) -> Result<(), String> {
    use sha2::Digest as _;
    let expected = expected.trim();
    if let Some(b64) = expected.strip_prefix("sha512-") {
        let got = base64(&sha2::Sha512::digest(bytes));
        return if got == b64 {
            Ok(())
        } else {
            Err(format!("its sha512 is {got}, the lockfile says {b64}"))
        };
    }
    let hex = expected.strip_prefix("sha256:").unwrap_or(expected);
    let got = crate::sha256_hex(bytes);
    if got.eq_ignore_ascii_case(hex) {
        Ok(())
    } else {
        Err(format!("its SHA-256 is {got}, the lockfile says {hex}"))
    }
}

/// Standard base64 with padding (what npm's integrity strings use).
fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ABC[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Where `--fetch` downloads Go modules from: the first entry of `GOPROXY` that is a URL.
pub fn go_proxy() -> Option<String> {
    std::env::var("GOPROXY").ok().and_then(|p| {
        p.split([',', '|'])
            .map(str::trim)
            .find(|e| e.starts_with("http"))
            .map(|e| e.trim_end_matches('/').to_string())
    })
}

/// Go's `h1:` digest of a module zip (dirhash Hash1): SHA-256 over the lines
/// `<sha256 hex of the file>  <name>\n` of its files, sorted by name, in base64.
fn go_h1(files: &mut [(String, Vec<u8>)]) -> String {
    use sha2::Digest as _;
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let mut summary = String::new();
    for (name, bytes) in files.iter() {
        let hex: String = sha2::Sha256::digest(bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        summary.push_str(&format!("{hex}  {name}\n"));
    }
    format!("h1:{}", base64(&sha2::Sha256::digest(summary.as_bytes())))
}

/// A Go module zip checked against its go.sum digest and unpacked to `target`: every file
/// under `module@version/`, nothing else, no path out of the folder.
fn unpack_go_zip(
    bytes: &[u8],
    dep: &Dependency,
    expected: &str,
    dir: &Path,
    target: &Path,
) -> Result<(), String> {
    use std::io::Read as _;
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(|e| e.to_string())?;
    let prefix = format!("{}@{}/", dep.name, dep.version);
    let mut files = Vec::new();
    for i in 0..zip.len() {
        let mut f = zip.by_index(i).map_err(|e| e.to_string())?;
        if f.is_dir() {
            continue;
        }
        let name = f.name().map_err(|e| e.to_string())?.to_string();
        let Some(rel) = name.strip_prefix(&prefix) else {
            return Err(format!("{name} is outside {prefix}"));
        };
        if rel.starts_with('/') || rel.split('/').any(|p| p == ".." || p.is_empty()) {
            return Err(format!("{name} leaves the module's folder"));
        }
        let mut data = Vec::new();
        f.read_to_end(&mut data).map_err(|e| e.to_string())?;
        files.push((name, data));
    }
    let got = go_h1(&mut files);
    if got != expected {
        return Err(format!(
            "its digest is {got}, go.sum says {expected}; refused, nothing kept"
        ));
    }
    let root = dir.join("module");
    for (name, data) in &files {
        let path = root.join(&name[prefix.len()..]);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        std::fs::write(&path, data).map_err(|e| e.to_string())?;
    }
    std::fs::rename(&root, target).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_checked_in_each_lockfile_form() {
        assert_eq!(base64(b"hello"), "aGVsbG8=");
        assert_eq!(base64(b"hi!"), "aGkh");
        let sha256 = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";
        assert!(verify(b"hello", sha256).is_ok());
        assert!(verify(b"hello", &format!("sha256:{sha256}")).is_ok());
        assert!(verify(b"hellO", sha256).is_err());
        let sha512 = "sha512-m3HSJL1i83hdltRq0+o9czGb+8KJDKra4t/3JRlnPKcjI8PZm6XBHXx6zG4UuMXaDEZjR1wuXDre9G9zvN7AQw==";
        assert!(
            verify(b"hello", sha512).is_ok(),
            "{}",
            base64(&<sha2::Sha512 as sha2::Digest>::digest(b"hello"))
        );
        assert!(verify(b"other", sha512).is_err());
    }
}
