//! Task → code localisation on real issues (`lore eval locate`): each instance names a
//! repository, the commit the task was written against, the task text and the files (and
//! functions) its fix changed. Per repository, one scratch work tree moves from base commit
//! to base commit in commit-time order, so the store re-reads (and re-embeds) only what
//! changed; each task is then ranked by every mode and scored at file and unit level.

use crate::jsonl::JsonlOut;
use anyhow::{Context, bail};
use lore_engine::{Engine, LocateEvidence, LocateRequest, Mode, Phase, Progress, SearchRequest};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// How files are ranked: a search mode's plain ranking (no intent, no priors; files in
/// order of their first result), or `locate` (file-level evidence, `Engine::locate`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Ranker {
    Fts,
    Vector,
    Hybrid,
    Locate,
}

impl Ranker {
    pub const ALL: [Ranker; 4] = [Ranker::Fts, Ranker::Vector, Ranker::Hybrid, Ranker::Locate];

    pub fn as_str(self) -> &'static str {
        match self {
            Ranker::Fts => "fts",
            Ranker::Vector => "vector",
            Ranker::Hybrid => "hybrid",
            Ranker::Locate => "locate",
        }
    }

    pub fn parse(s: &str) -> Option<Ranker> {
        Ranker::ALL.into_iter().find(|r| r.as_str() == s)
    }

    fn needs_vectors(self) -> bool {
        matches!(self, Ranker::Vector | Ranker::Hybrid)
    }
}

#[derive(Debug, Clone)]
pub struct LocateOptions {
    /// JSONL: instance_id, repo, base_commit, query, gold_files, gold_spans?
    pub set: PathBuf,
    /// Where the repositories are: `<owner>+<name>`, `<owner>+<name>/repo` or
    /// `<owner>/<name>` under it, bare or not.
    pub repos: PathBuf,
    pub rankers: Vec<Ranker>,
    /// Index without the model: BM25 and the code graph only (`locate` then ranks over
    /// BM25); the vector and hybrid rankers are refused.
    pub lexical: bool,
    /// Only instances of this repository (`owner/name`).
    pub repo: Option<String>,
    /// Only the first N instances (after `repo`).
    pub max: Option<usize>,
    /// Also run `locate` with each kind of evidence turned off.
    pub ablation: bool,
    /// Per-instance JSONL (default: `<data>/eval/locate-<set>-<unix time>.jsonl`).
    pub out: Option<PathBuf>,
}

#[derive(Debug, Clone, Deserialize)]
struct Instance {
    instance_id: String,
    repo: String,
    base_commit: String,
    query: String,
    gold_files: Vec<String>,
    #[serde(default)]
    gold_spans: BTreeMap<String, Vec<String>>,
}

/// Averages over the instances of one ranker.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LocateScores {
    pub ranker: String,
    pub instances: usize,
    pub acc1: f64,
    pub acc5: f64,
    pub acc10: f64,
    pub recall10: f64,
    pub mrr: f64,
    /// Instances with gold functions/classes, and the share of those found among the top
    /// 10 units (recall) and all found (acc).
    pub unit_instances: usize,
    pub unit_recall10: f64,
    pub unit_acc10: f64,
    /// Per-query time of this ranker, milliseconds (median, 95th percentile).
    pub p50_ms: f64,
    pub p95_ms: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct LocateReport {
    pub set: String,
    pub instances: usize,
    pub repos: usize,
    pub lexical: bool,
    pub scores: Vec<LocateScores>,
    /// Instances left out because their base commit could not be checked out (a mirror
    /// missing a blob, say), with why; the scores count only the others.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
    pub out: PathBuf,
}

/// One ranker's answer: files in order, and units in order as (path, names it goes by).
struct Ranking {
    files: Vec<String>,
    units: Vec<(String, Vec<String>)>,
    /// Locate only: each file's units further down than the answer shows (same order as
    /// `files`), to see where a gold unit was missed.
    deeper: Vec<Vec<Vec<String>>>,
}

/// Units per file the diagnostics look through (the answer shows the request's default).
const DEEPER_UNITS: usize = 10;

/// Where each gold unit stands in a locate answer: the file's rank and the unit's place
/// among that file's units (1-based, up to [`DEEPER_UNITS`]), null where absent.
fn gold_unit_places(r: &Ranking, inst: &Instance) -> Vec<serde_json::Value> {
    let mut out = Vec::new();
    for (file, names) in &inst.gold_spans {
        let file_rank = r.files.iter().position(|f| f == file);
        for name in names.iter().filter(|n| n.as_str() != "imports") {
            let unit_rank = file_rank.and_then(|i| {
                r.deeper
                    .get(i)?
                    .iter()
                    .position(|u| u.iter().any(|n| n == name))
            });
            out.push(serde_json::json!({
                "file": file, "unit": name,
                "file_rank": file_rank.map(|i| i + 1),
                "unit_rank": unit_rank.map(|i| i + 1),
            }));
        }
    }
    out
}

fn read_set(path: &Path) -> anyhow::Result<Vec<Instance>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let inst: Instance = serde_json::from_str(line).with_context(|| {
            format!(
                "{} line {}: not an instance (instance_id, repo, base_commit, query, gold_files)",
                path.display(),
                i + 1
            )
        })?;
        if inst.gold_files.is_empty() {
            bail!("{} line {}: gold_files is empty", path.display(), i + 1);
        }
        out.push(inst);
    }
    if out.is_empty() {
        bail!("{} holds no instances", path.display());
    }
    Ok(out)
}

/// The git directory of `owner/name` under `dir`, in any of the accepted layouts.
pub fn find_repo(dir: &Path, repo: &str) -> anyhow::Result<PathBuf> {
    // A set mined by `lore eval history` names its repository by path.
    let direct = Path::new(repo);
    if direct.is_absolute() && lore_source::git::git_dir(direct).join("HEAD").is_file() {
        return Ok(direct.to_path_buf());
    }
    let flat = repo.replace('/', "+");
    let tries = [
        dir.join(&flat).join("repo"),
        dir.join(&flat),
        dir.join(repo),
    ];
    for t in &tries {
        let git = lore_source::git::git_dir(t);
        if git.join("HEAD").is_file() {
            return Ok(t.clone());
        }
    }
    bail!(
        "repository {repo} not found under {}: tried {}",
        dir.display(),
        tries
            .iter()
            .map(|t| t.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

fn store_name(repo: &str, lexical: bool) -> String {
    let repo = if Path::new(repo).is_absolute() {
        repo.rsplit('/')
            .find(|s| !s.is_empty() && *s != "repo" && *s != ".git")
            .unwrap_or("repo")
    } else {
        repo
    };
    let base: String = repo
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    if lexical {
        format!("locate-{base}-lexical")
    } else {
        format!("locate-{base}")
    }
}

/// Whether a unit named `names` in `path` is the gold span `span` of `file`.
fn unit_matches(path: &str, names: &[String], file: &str, span: &str) -> bool {
    path == file && names.iter().any(|n| n == span)
}

/// Scores of one ranking against an instance: acc@1/5/10, recall@10, reciprocal rank,
/// and (when the instance has gold units) unit recall@10 and whether all were found.
fn score(r: &Ranking, inst: &Instance) -> ([f64; 5], Option<(f64, f64)>) {
    let all_in = |k: usize| {
        let top = &r.files[..r.files.len().min(k)];
        f64::from(u8::from(inst.gold_files.iter().all(|g| top.contains(g))))
    };
    let top10 = &r.files[..r.files.len().min(10)];
    let recall10 = inst.gold_files.iter().filter(|g| top10.contains(g)).count() as f64
        / inst.gold_files.len() as f64;
    let rr = r
        .files
        .iter()
        .position(|f| inst.gold_files.contains(f))
        .map_or(0.0, |i| 1.0 / (i + 1) as f64);
    let spans: Vec<(&String, &String)> = inst
        .gold_spans
        .iter()
        .flat_map(|(f, names)| names.iter().map(move |n| (f, n)))
        .filter(|(_, n)| n.as_str() != "imports")
        .collect();
    let units = if spans.is_empty() {
        None
    } else {
        let top = &r.units[..r.units.len().min(10)];
        let found = spans
            .iter()
            .filter(|(f, n)| top.iter().any(|(p, names)| unit_matches(p, names, f, n)))
            .count();
        Some((
            found as f64 / spans.len() as f64,
            f64::from(u8::from(found == spans.len())),
        ))
    };
    ([all_in(1), all_in(5), all_in(10), recall10, rr], units)
}

fn names(symbol: Option<&String>, qualified: Option<&String>) -> Vec<String> {
    symbol.into_iter().chain(qualified).cloned().collect()
}

fn rank_with_search(
    engine: &Engine,
    store: &str,
    task: &str,
    mode: Mode,
) -> anyhow::Result<Ranking> {
    let mut req = SearchRequest::new(task);
    req.stores = vec![store.to_string()];
    req.mode = mode;
    req.limit = 100;
    req.per_file = 100;
    req.freshness = false;
    // The plain ranking of the mode: no intent (a task would be located) and no priors.
    req.priors = false;
    let resp = engine.search(&req)?;
    let mut files: Vec<String> = Vec::new();
    let mut units = Vec::new();
    for hit in &resp.results {
        if !files.contains(&hit.unit.path) {
            files.push(hit.unit.path.clone());
        }
        units.push((
            hit.unit.path.clone(),
            names(hit.unit.symbol.as_ref(), hit.unit.qualified.as_ref()),
        ));
    }
    Ok(Ranking {
        files,
        units,
        deeper: Vec::new(),
    })
}

fn rank_with_locate(
    engine: &Engine,
    store: &str,
    task: &str,
    mode: Mode,
    evidence: LocateEvidence,
) -> anyhow::Result<Ranking> {
    let mut req = LocateRequest::new(task);
    req.stores = vec![store.to_string()];
    req.limit = 50;
    req.mode = mode;
    req.evidence = evidence;
    // Scored on the units an answer shows; the ones below are kept for diagnostics (a
    // file's first units are the same however many are asked for).
    let shown = req.units;
    req.units = DEEPER_UNITS.max(shown);
    let resp = engine.locate(&req)?;
    let files = resp.files.iter().map(|f| f.path.clone()).collect();
    let deeper: Vec<Vec<Vec<String>>> = resp
        .files
        .iter()
        .map(|f| {
            f.units
                .iter()
                .map(|u| names(u.symbol.as_ref(), u.qualified.as_ref()))
                .collect()
        })
        .collect();
    let units = resp
        .files
        .iter()
        .zip(&deeper)
        .flat_map(|(f, us)| us.iter().take(shown).map(|n| (f.path.clone(), n.clone())))
        .collect();
    Ok(Ranking {
        files,
        units,
        deeper,
    })
}

/// The rankers to run: each asked one, and with `ablation` locate without each kind of
/// evidence (labelled `locate-no-<evidence>`).
fn variants(opts: &LocateOptions) -> Vec<(String, Ranker, LocateEvidence)> {
    let mut out: Vec<(String, Ranker, LocateEvidence)> = opts
        .rankers
        .iter()
        .map(|r| (r.as_str().to_string(), *r, LocateEvidence::default()))
        .collect();
    if opts.ablation {
        let all = LocateEvidence::default();
        for (name, ev) in [
            (
                "all-chunks",
                LocateEvidence {
                    all_chunks: false,
                    ..all
                },
            ),
            (
                "paths",
                LocateEvidence {
                    paths: false,
                    ..all
                },
            ),
            (
                "symbols",
                LocateEvidence {
                    symbols: false,
                    ..all
                },
            ),
            (
                "priors",
                LocateEvidence {
                    priors: false,
                    ..all
                },
            ),
            (
                "unit-names",
                LocateEvidence {
                    unit_names: false,
                    ..all
                },
            ),
            (
                "bm25-by-best",
                LocateEvidence {
                    bm25_by_best: false,
                    ..all
                },
            ),
            (
                "everything",
                LocateEvidence {
                    all_chunks: false,
                    paths: false,
                    symbols: false,
                    priors: false,
                    task_terms: false,
                    unit_names: false,
                    bm25_by_best: false,
                },
            ),
        ] {
            out.push((format!("locate-no-{name}"), Ranker::Locate, ev));
        }
    }
    out
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

pub fn run(
    engine: &mut Engine,
    opts: &LocateOptions,
    progress: &dyn Progress,
) -> anyhow::Result<LocateReport> {
    if opts.rankers.is_empty() && !opts.ablation {
        bail!("no rankers to evaluate");
    }
    if opts.lexical && opts.rankers.iter().any(|r| r.needs_vectors()) {
        bail!("the vector and hybrid rankers need embeddings; leave them out with --lexical");
    }
    let set_name = opts
        .set
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "set".into());
    let set_name = match opts.set.parent().and_then(|p| p.file_name()) {
        Some(dir) if set_name == "instances" => dir.to_string_lossy().into_owned(),
        _ => set_name,
    };
    let mut instances = read_set(&opts.set)?;
    if let Some(repo) = &opts.repo {
        instances.retain(|i| &i.repo == repo);
        if instances.is_empty() {
            bail!("{} has no instance of {repo}", opts.set.display());
        }
    }
    if let Some(n) = opts.max {
        instances.truncate(n);
    }
    // Repositories in order of first appearance; each one's instances by commit time.
    let mut repos: Vec<String> = Vec::new();
    for i in &instances {
        if !repos.contains(&i.repo) {
            repos.push(i.repo.clone());
        }
    }
    let mut mirrors = HashMap::new();
    for r in &repos {
        mirrors.insert(r.clone(), find_repo(&opts.repos, r)?);
    }
    let variants = variants(opts);
    let locate_mode = if opts.lexical {
        Mode::Fts
    } else {
        Mode::Hybrid
    };

    let mut w = JsonlOut::create(engine, opts.out.as_deref(), &format!("locate-{set_name}"))?;

    let embed_before = engine.config().embed;
    engine.config_mut().embed = !opts.lexical;
    let result = (|| -> anyhow::Result<(Vec<LocateScores>, Vec<String>)> {
        let mut sums: Vec<LocateScores> = variants
            .iter()
            .map(|(name, _, _)| LocateScores {
                ranker: name.clone(),
                ..Default::default()
            })
            .collect();
        let mut times: Vec<Vec<f64>> = vec![Vec::new(); variants.len()];
        let mut skipped = Vec::new();
        let scratch = engine.data_dir().root().join("eval").join("locate");
        progress.start(Phase::Queries, instances.len() as u64);
        for repo in &repos {
            let mirror = &mirrors[repo];
            let mut todo: Vec<(i64, &Instance)> = Vec::new();
            for i in instances.iter().filter(|i| &i.repo == repo) {
                let t =
                    lore_source::git::commit_time(mirror, &i.base_commit).with_context(|| {
                        format!(
                            "{}: base commit {} not in {}",
                            i.instance_id,
                            i.base_commit,
                            mirror.display()
                        )
                    })?;
                todo.push((t, i));
            }
            todo.sort_by_key(|(t, i)| (*t, i.instance_id.clone()));
            let flat = if Path::new(repo).is_absolute() {
                store_name(repo, false)
            } else {
                repo.replace('/', "+")
            };
            let tree = scratch.join(&flat);
            let index_file = scratch.join(format!("{flat}.index"));
            let store = store_name(repo, opts.lexical);
            for (_, inst) in todo {
                progress.message(&format!(
                    "{}: {}",
                    inst.instance_id,
                    &inst.base_commit[..inst.base_commit.len().min(12)]
                ));
                if let Err(e) =
                    lore_source::git::check_out_into(mirror, &tree, &index_file, &inst.base_commit)
                {
                    // One unreadable commit leaves the tree where it was; the rest still count.
                    let why = format!("{}: {e}", inst.instance_id);
                    w.line(&serde_json::json!({
                        "instance_id": inst.instance_id, "repo": inst.repo, "skipped": why,
                    }))?;
                    skipped.push(why);
                    progress.advance(Phase::Queries, 1);
                    continue;
                }
                match engine.store_record(&store) {
                    Ok(_) => {
                        engine.index(std::slice::from_ref(&store), false, progress)?;
                    }
                    Err(_) => {
                        let req = lore_engine::AddStore {
                            name: store.clone(),
                            source: tree.to_string_lossy().into_owned(),
                            kind: Some(lore_core::StoreKind::Folder),
                            description: Some(format!("{repo} for lore eval locate")),
                            ..Default::default()
                        };
                        engine.add_store(&req, progress)?;
                    }
                }
                let mut line = serde_json::json!({
                    "instance_id": inst.instance_id, "repo": inst.repo,
                    "gold_files": inst.gold_files,
                });
                for (vi, (name, ranker, evidence)) in variants.iter().enumerate() {
                    let started = std::time::Instant::now();
                    let ranking = match ranker {
                        Ranker::Fts => rank_with_search(engine, &store, &inst.query, Mode::Fts)?,
                        Ranker::Vector => {
                            rank_with_search(engine, &store, &inst.query, Mode::Vector)?
                        }
                        Ranker::Hybrid => {
                            rank_with_search(engine, &store, &inst.query, Mode::Hybrid)?
                        }
                        Ranker::Locate => {
                            rank_with_locate(engine, &store, &inst.query, locate_mode, *evidence)?
                        }
                    };
                    let ms = started.elapsed().as_secs_f64() * 1000.0;
                    times[vi].push(ms);
                    let (m, units) = score(&ranking, inst);
                    let s = &mut sums[vi];
                    s.instances += 1;
                    s.acc1 += m[0];
                    s.acc5 += m[1];
                    s.acc10 += m[2];
                    s.recall10 += m[3];
                    s.mrr += m[4];
                    if let Some((recall, all)) = units {
                        s.unit_instances += 1;
                        s.unit_recall10 += recall;
                        s.unit_acc10 += all;
                    }
                    line[name] = serde_json::json!({
                        "acc1": m[0], "acc5": m[1], "acc10": m[2], "recall10": m[3], "rr": m[4],
                        "unit_recall10": units.map(|u| u.0),
                        "top10": &ranking.files[..ranking.files.len().min(10)],
                        "ms": (ms * 10.0).round() / 10.0,
                    });
                    if !ranking.deeper.is_empty() {
                        line[name]["gold_units"] = gold_unit_places(&ranking, inst).into();
                    }
                }
                w.line(&line)?;
                progress.advance(Phase::Queries, 1);
            }
        }
        progress.finish(Phase::Queries);
        for (s, t) in sums.iter_mut().zip(&mut times) {
            let n = s.instances.max(1) as f64;
            for v in [
                &mut s.acc1,
                &mut s.acc5,
                &mut s.acc10,
                &mut s.recall10,
                &mut s.mrr,
            ] {
                *v /= n;
            }
            let u = s.unit_instances.max(1) as f64;
            s.unit_recall10 /= u;
            s.unit_acc10 /= u;
            t.sort_by(f64::total_cmp);
            s.p50_ms = percentile(t, 0.5);
            s.p95_ms = percentile(t, 0.95);
        }
        Ok((sums, skipped))
    })();
    engine.config_mut().embed = embed_before;
    let (scores, skipped) = result?;
    for s in &scores {
        let mut line = serde_json::to_value(s)?;
        line["type"] = "summary".into();
        line["set"] = set_name.clone().into();
        line["lexical"] = opts.lexical.into();
        w.line(&line)?;
    }
    let out = w.finish()?;
    Ok(LocateReport {
        set: set_name,
        instances: instances.len(),
        repos: repos.len(),
        lexical: opts.lexical,
        scores,
        skipped,
        out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inst(gold: &[&str], spans: &[(&str, &[&str])]) -> Instance {
        Instance {
            instance_id: "x".into(),
            repo: "o/r".into(),
            base_commit: "c".into(),
            query: "q".into(),
            gold_files: gold.iter().map(|s| s.to_string()).collect(),
            gold_spans: spans
                .iter()
                .map(|(f, n)| (f.to_string(), n.iter().map(|s| s.to_string()).collect()))
                .collect(),
        }
    }

    #[test]
    fn file_and_unit_scores() {
        let r = Ranking {
            files: ["a.py", "b.py", "c.py"].map(String::from).to_vec(),
            units: vec![
                ("a.py".into(), vec!["f".into()]),
                ("b.py".into(), vec!["meth".into(), "K.meth".into()]),
            ],
            deeper: vec![
                vec![vec!["f".into()]],
                vec![vec!["g".into()], vec!["meth".into(), "K.meth".into()]],
            ],
        };
        let (m, u) = score(&r, &inst(&["b.py"], &[("b.py", &["K.meth", "imports"])]));
        assert_eq!(m, [0.0, 1.0, 1.0, 1.0, 0.5]);
        assert_eq!(u, Some((1.0, 1.0)));
        // All gold files must be in the top k; recall counts each.
        let (m, u) = score(&r, &inst(&["c.py", "z.py"], &[("z.py", &["g"])]));
        assert_eq!(m, [0.0, 0.0, 0.0, 0.5, 1.0 / 3.0]);
        assert_eq!(u, Some((0.0, 0.0)));
        let (_, u) = score(&r, &inst(&["a.py"], &[]));
        assert_eq!(u, None);
        // Diagnostics: where each gold unit stands, file rank and place in the file.
        let places = gold_unit_places(&r, &inst(&["b.py"], &[("b.py", &["K.meth", "h"])]));
        assert_eq!(places[0]["file_rank"], 2);
        assert_eq!(places[0]["unit_rank"], 2);
        assert!(places[1]["unit_rank"].is_null());
    }

    #[test]
    fn repositories_are_found_in_each_layout() {
        let dir = tempfile::tempdir().unwrap();
        let bare = dir.path().join("o+r").join("repo");
        std::fs::create_dir_all(&bare).unwrap();
        std::fs::write(bare.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        assert_eq!(find_repo(dir.path(), "o/r").unwrap(), bare);
        let nested = dir.path().join("p").join("s").join(".git");
        std::fs::create_dir_all(&nested).unwrap();
        std::fs::write(nested.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        assert_eq!(
            find_repo(dir.path(), "p/s").unwrap(),
            dir.path().join("p/s")
        );
        let err = find_repo(dir.path(), "q/t").unwrap_err().to_string();
        assert!(err.contains("q+t") && err.contains("not found"), "{err}");
    }
}
