//! `lore eval labeled|judge|compare|runs|intents|locate|history`: lore measuring itself (`lore-eval`), printed as
//! text or JSON.

use crate::cli::{
    CompareArgs, EvalCommand, EvalLocateArgs, FeedbackArgs, IntentsArgs, JudgeArgs, LabeledArgs,
    RunsArgs,
};
use crate::output::print_json;
use lore_engine::{Engine, EngineError, ExitKind, Progress};
use lore_eval::compare::{self, CompareError};
use lore_eval::judge::{self, JudgeError, JudgeOptions};
use std::path::PathBuf;

pub fn run(
    engine: &mut Engine,
    command: EvalCommand,
    json: bool,
    progress: &dyn Progress,
) -> anyhow::Result<()> {
    match command {
        EvalCommand::Labeled(a) => run_labeled(engine, a, json, progress),
        EvalCommand::Judge(a) => run_judge(engine, a, json, progress),
        EvalCommand::Compare(a) => run_compare(a, json),
        EvalCommand::Runs(a) => run_runs(engine, a, json),
        EvalCommand::Feedback(a) => run_feedback(engine, a, json),
        EvalCommand::Intents(a) => run_intents(engine, a, json, progress),
        EvalCommand::Locate(a) => run_locate(engine, a, json, progress),
        EvalCommand::History(a) => {
            let report = lore_eval::history::run(engine, &a.options())?;
            if json {
                return print_json(&report);
            }
            out!(
                "{} tasks from {} commits of {} (left out: {} too large, {} formatting, {} without source changes, {} with short messages)",
                report.written,
                report.scanned,
                report.repo.display(),
                report.skipped_large,
                report.skipped_formatting,
                report.skipped_no_source,
                report.skipped_short_message
            );
            out!("set: {}", report.out.display());
            out!("measure it: lore eval locate {}", report.out.display());
            Ok(())
        }
    }
}

fn run_intents(
    engine: &mut Engine,
    a: IntentsArgs,
    json: bool,
    progress: &dyn Progress,
) -> anyhow::Result<()> {
    let report = lore_eval::intents::run(engine, &a.options(), progress)?;
    if json {
        return print_json(&report);
    }
    out!(
        "{:<20} {:>7} {:>8} {:>9} {:>7} {:>6} {:>11}",
        "intent",
        "queries",
        "blind",
        "inferred",
        "given",
        "top-1",
        "top-1 whole"
    );
    for s in report.per_intent.iter().chain(std::iter::once(&report.all)) {
        out!(
            "{:<20} {:>7} {:>8.3} {:>9.3} {:>7.3} {:>6} {:>11}",
            s.intent,
            s.queries,
            s.mrr.blind,
            s.mrr.inferred,
            s.mrr.given,
            s.top1,
            s.top1_whole
        );
    }
    out!("{}", report.tokens);
    Ok(())
}

fn run_locate(
    engine: &mut Engine,
    a: EvalLocateArgs,
    json: bool,
    progress: &dyn Progress,
) -> anyhow::Result<()> {
    let report = lore_eval::locate::run(engine, &a.options(), progress)?;
    if json {
        return print_json(&report);
    }
    out!(
        "{} ({} instances, {} repositories{})",
        report.set,
        report.instances,
        report.repos,
        if report.lexical { ", lexical" } else { "" }
    );
    out!(
        "{:<22} {:>6} {:>6} {:>6} {:>9} {:>6} {:>10} {:>8} {:>8}",
        "ranker",
        "Acc@1",
        "Acc@5",
        "Acc@10",
        "Recall@10",
        "MRR",
        "unit R@10",
        "p50 ms",
        "p95 ms"
    );
    for s in &report.scores {
        // Sets without gold units (history) have no unit figure.
        let units = if s.unit_instances == 0 {
            "-".to_string()
        } else {
            format!("{:.3}", s.unit_recall10)
        };
        out!(
            "{:<22} {:>6.3} {:>6.3} {:>6.3} {:>9.3} {:>6.3} {:>10} {:>8.1} {:>8.1}",
            s.ranker,
            s.acc1,
            s.acc5,
            s.acc10,
            s.recall10,
            s.mrr,
            units,
            s.p50_ms,
            s.p95_ms
        );
    }
    for why in &report.skipped {
        out!("skipped {why}");
    }
    out!("per-instance results: {}", report.out.display());
    Ok(())
}

fn run_labeled(
    engine: &mut Engine,
    a: LabeledArgs,
    json: bool,
    progress: &dyn Progress,
) -> anyhow::Result<()> {
    let report = lore_eval::labeled::run(engine, &a.options(), progress)?;
    if json {
        return print_json(&report);
    }
    out!(
        "{} ({} split, {} queries, {} documents)",
        report.set,
        report.split,
        report.scores.first().map_or(0, |s| s.queries),
        report.documents
    );
    out!(
        "{:<8} {:>8} {:>8} {:>10} {:>10}",
        "mode",
        "nDCG@10",
        "MRR@10",
        "Recall@10",
        "Recall@100"
    );
    for s in &report.scores {
        out!(
            "{:<8} {:>8.4} {:>8.4} {:>10.4} {:>10.4}",
            s.mode.as_str(),
            s.ndcg10,
            s.mrr10,
            s.recall10,
            s.recall100
        );
    }
    for row in &report.sweep {
        out!(
            "sweep {:?}: nDCG@10 {:.4} MRR@10 {:.4}",
            row.fusion,
            row.ndcg10,
            row.mrr10
        );
    }
    if let Some(t) = &report.tokens {
        out!("{t}");
    }
    out!("per-query results: {}", report.out.display());
    Ok(())
}

/// An error as the binary reports it: input and not-found errors keep their exit code.
fn exit_error(kind: ExitKind, e: impl std::error::Error + Send + Sync + 'static) -> anyhow::Error {
    match kind {
        ExitKind::Input => EngineError::Input(e.to_string()).into(),
        ExitKind::NotFound => EngineError::NotFound(e.to_string()).into(),
        ExitKind::Internal => anyhow::Error::new(e),
    }
}

fn judge_error(e: JudgeError) -> anyhow::Error {
    match e {
        JudgeError::Engine(e) => e.into(),
        other => exit_error(other.exit_kind(), other),
    }
}

fn run_judge(
    engine: &Engine,
    a: JudgeArgs,
    json: bool,
    progress: &dyn Progress,
) -> anyhow::Result<()> {
    let settings = a.settings().map_err(judge_error)?;
    let llm = settings.client().map_err(judge_error)?;
    let opts = JudgeOptions {
        settings,
        queries_file: a.queries_file,
        limit_file_queries: a.queries.is_some(),
        out_dir: a
            .out_dir
            .unwrap_or_else(|| lore_eval::runs::default_dir(engine.data_dir())),
    };
    let report = judge::run(engine, &llm, &opts, progress).map_err(judge_error)?;
    // A run that judged nothing measured nothing: say why and exit non-zero.
    let nothing = (report.summary.judged_queries == 0).then(|| {
        let s = &report.summary;
        let why = s
            .stopped
            .clone()
            .unwrap_or_else(|| format!("all {} failed", s.failed_queries));
        EngineError::Input(format!(
            "no query was judged ({why}); the errors are in {}",
            report.out.display()
        ))
    });
    if json {
        print_json(&report)?;
        return nothing.map_or(Ok(()), |e| Err(e.into()));
    }
    let s = &report.summary;
    out!(
        "judged {} of {} queries ({} failed) · mode {} · limit {} · stores {} · {}",
        s.judged_queries,
        s.total_queries,
        s.failed_queries,
        s.search_mode,
        s.search_limit,
        s.stores.join(", "),
        s.judge
    );
    if let Some(avg) = &s.average_scores {
        out!("{:<16} {:>7}", "dimension", "average");
        for (name, v) in judge::DIMENSIONS.iter().zip(avg.values()) {
            out!("{name:<16} {v:>7.3}");
        }
    }
    if let Some(f) = &s.recommended_focus {
        out!("recommended focus: {f}");
    }
    if !s.top_issue_counts.is_empty() {
        out!("top issues:");
        for i in &s.top_issue_counts {
            out!("  {:>3}×  {}", i.count, i.suggestion);
        }
    }
    out!("per-query results: {}", report.out.display());
    if let Some(q) = &report.queries_out {
        out!("queries saved: {} (reuse with --queries-file)", q.display());
    }
    nothing.map_or(Ok(()), |e| Err(e.into()))
}

fn run_feedback(engine: &Engine, a: FeedbackArgs, json: bool) -> anyhow::Result<()> {
    let r = lore_eval::feedback::run(engine, &a.file, &crate::cli::split_list(&a.stores), a.mode)?;
    if json {
        return print_json(&r);
    }
    out!(
        "trained on {} lines: {} opened after {} searches",
        r.trained,
        r.opened,
        r.searches
    );
    out!("{:<22} {:>8} {:>8}", "", "MRR@10", "Acc@5");
    for (name, s) in [
        ("held-out, without", r.heldout_without),
        ("held-out, with", r.heldout_with),
        ("control, without", r.control_without),
        ("control, with", r.control_with),
    ] {
        out!(
            "{name:<22} {:>8.3} {:>8.3}   ({} queries)",
            s.mrr_at_10,
            s.acc_at_5,
            s.queries
        );
    }
    let p = &r.poisoning;
    out!(
        "poisoning: {} useful marks from one client on the last unit each control query shows",
        p.marks_per_query
    );
    for q in &p.queries {
        let rank = |r: Option<usize>| r.map_or("-".to_string(), |r| r.to_string());
        out!(
            "  {:<50} unit {:>2} -> {:>2}   relevant {} -> {}",
            q.query,
            q.unit_before,
            rank(q.unit_after),
            rank(q.relevant_before),
            rank(q.relevant_after)
        );
    }
    out!(
        "  best climb {} places; control while poisoned MRR@10 {:.3} Acc@5 {:.3}; \
         {} bytes per 10,000 signals",
        p.best_climb,
        p.control_poisoned.mrr_at_10,
        p.control_poisoned.acc_at_5,
        p.bytes_per_10k_signals
    );
    Ok(())
}

fn run_runs(engine: &Engine, a: RunsArgs, json: bool) -> anyhow::Result<()> {
    use lore_eval::runs;
    let dir = a
        .dir
        .unwrap_or_else(|| runs::default_dir(engine.data_dir()));
    let fail = |e: CompareError| exit_error(e.exit_kind(), e);
    let score = |v: &serde_json::Value, k: &str| {
        v.get(k)
            .and_then(serde_json::Value::as_f64)
            .map_or("-".to_string(), |x| format!("{x:.3}"))
    };
    let Some(name) = a.name else {
        let list = runs::list_runs(&dir).map_err(fail)?;
        if json {
            return print_json(&list);
        }
        if list.is_empty() {
            out!(
                "no judge runs in {} (make one: lore eval judge)",
                dir.display()
            );
        }
        for r in &list {
            let (avg, judged, mode) = match &r.summary {
                Some(s) => (
                    score(&s["averageScores"], "overall"),
                    s["judgedQueries"].to_string(),
                    s["searchMode"].as_str().unwrap_or("").to_string(),
                ),
                None => ("-".into(), "?".into(), "stopped early".into()),
            };
            out!(
                "{:<32} overall {avg}  {judged}/{} judged  {mode}",
                r.name,
                r.queries
            );
        }
        return Ok(());
    };
    let run = runs::read_run_lines(&dir, &name).map_err(fail)?;
    if json {
        return print_json(&run);
    }
    if let Some(s) = &run.summary {
        let avg = &s["averageScores"];
        out!(
            "{}: relevance {} ranking {} coverage {} snippetQuality {} overall {}",
            run.name,
            score(avg, "relevance"),
            score(avg, "ranking"),
            score(avg, "coverage"),
            score(avg, "snippetQuality"),
            score(avg, "overall")
        );
        if let Some(focus) = s["recommendedFocus"].as_str() {
            out!("focus: {focus}");
        }
    }
    for q in &run.queries {
        let status = q["status"].as_str().unwrap_or("ok");
        let overall = if status == "ok" {
            score(&q["scores"], "overall")
        } else {
            status.to_string()
        };
        out!("  {overall:>7}  {}", q["query"].as_str().unwrap_or(""));
    }
    Ok(())
}

fn run_compare(a: CompareArgs, json: bool) -> anyhow::Result<()> {
    let read =
        |p: &PathBuf| compare::read_run(p).map_err(|e: CompareError| exit_error(e.exit_kind(), e));
    let c = compare::compare(&read(&a.a)?, &read(&a.b)?);
    if json {
        return print_json(&c);
    }
    for (label, r) in [("A", &c.a), ("B", &c.b)] {
        let st = &r.settings;
        let shaped: Vec<String> = [
            st.mode.clone(),
            st.detail.clone(),
            st.search_limit.map(|n| format!("limit {n}")),
            st.stores
                .as_ref()
                .map(|s| format!("stores {}", s.join(","))),
            st.search_intent.as_ref().map(|i| format!("intent {i}")),
            st.judge.as_ref().map(|j| format!("judge {j}")),
        ]
        .into_iter()
        .flatten()
        .collect();
        out!(
            "{label}: {} ({}{} queries, {} failed{})",
            r.file.display(),
            shaped.iter().map(|s| format!("{s}, ")).collect::<String>(),
            r.total_queries,
            r.failed_queries,
            if r.complete {
                ""
            } else {
                ", no summary: stopped early"
            }
        );
    }
    for w in &c.warnings {
        out!("warning: {w}");
    }
    out!(
        "paired over the {} queries judged in both runs{}",
        c.paired,
        if c.judged_in_one.is_empty() {
            String::new()
        } else {
            format!(
                " ({} judged in one run only, listed below)",
                c.judged_in_one.len()
            )
        }
    );
    let num = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.3}"));
    let signed = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:+.3}"));
    out!("{:<16} {:>7} {:>7} {:>7}", "dimension", "A", "B", "delta");
    for d in &c.averages {
        out!(
            "{:<16} {:>7} {:>7} {:>7}",
            d.dimension,
            num(d.a),
            num(d.b),
            signed(d.delta)
        );
    }
    if !c.queries.is_empty() {
        out!("per query, overall A → B:");
        for q in &c.queries {
            let overall = |s: &Option<judge::Scores>| {
                s.map_or("failed".to_string(), |s| format!("{:.2}", s.overall))
            };
            out!(
                "  {:>7}  {:>6} → {:<6}  {}",
                signed(q.delta.map(|d| d.overall)),
                overall(&q.a),
                overall(&q.b),
                q.query
            );
        }
    }
    for (label, list) in [
        ("judged in one run only", &c.judged_in_one),
        ("only in A", &c.only_in_a),
        ("only in B", &c.only_in_b),
    ] {
        if !list.is_empty() {
            out!("{label}: {}", list.join(" | "));
        }
    }
    Ok(())
}
