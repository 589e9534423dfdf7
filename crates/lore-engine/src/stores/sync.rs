//! `lore sync` with a project file: plan each store's step against the catalog (create,
//! update in place, replace, index), refuse what the file may not ask for unless trusted
//! (`trust`), then carry the plan out. The file itself is read in `project`.

use crate::project::{Project, SyncAction, SyncOptions, SyncReport, SyncStep, diff, own_store};
use crate::{Engine, EngineError, Progress};
use lore_core::StoreKind;
use lore_index::StoreRecord;
use std::path::{Path, PathBuf};

impl Engine {
    /// The plan for `project`: each store's action and what changed.
    /// A file that asks for more than its own folder is refused here unless trusted
    /// (`trust::require`).
    pub fn sync_plan(&self, project: &Project) -> Result<Vec<SyncStep>, EngineError> {
        crate::project::trust::require(project)?;
        let mut steps = Vec::new();
        for (name, def) in &project.stores {
            let req = project.add_request(name, def);
            let walk = self.add_walk_options(&req);
            let (kind, source) = self
                .check_spec(&req, &walk)
                .map_err(|e| EngineError::Input(format!("{}: {e}", project.at(name))))?;
            let (action, changes) = match self.catalog.store(name)? {
                None => (SyncAction::Create, Vec::new()),
                Some(rec) => {
                    let (action, changes) = diff(&rec, &req, kind, &source, walk.max_file_bytes);
                    if action == SyncAction::Replace
                        && let Some(other) = other_project(&rec, project)
                    {
                        return Err(EngineError::Input(format!(
                            "{}: the data dir's store {name:?} is another project's, {} (its \
                             source is {}); a store name is one per data dir: name this one \
                             differently (nothing was changed)",
                            project.at(name),
                            other.display(),
                            rec.source
                        )));
                    }
                    (action, changes)
                }
            };
            steps.push(SyncStep {
                store: name.clone(),
                action,
                changes,
                files: None,
                chunks: None,
                added: None,
                changed: None,
                deleted: None,
            });
        }
        Ok(steps)
    }

    /// Brings the data dir in step with `project`: creates missing stores, updates changed
    /// definitions, replaces stores whose source changed (only with `yes`), and indexes.
    /// The whole plan is checked before anything is written.
    pub fn sync_project(
        &mut self,
        project: &Project,
        opts: SyncOptions,
        progress: &dyn Progress,
    ) -> Result<SyncReport, EngineError> {
        // An untrusted file's stores are read as if its folder were all that may be read.
        let narrowed = crate::project::trust::narrowed(project, &self.config.reads);
        let saved = narrowed.map(|r| std::mem::replace(&mut self.config.reads, r));
        let report = self.sync_allowed(project, opts, progress);
        if let Some(reads) = saved {
            self.config.reads = reads;
        }
        report
    }

    fn sync_allowed(
        &mut self,
        project: &Project,
        opts: SyncOptions,
        progress: &dyn Progress,
    ) -> Result<SyncReport, EngineError> {
        let mut steps = self.sync_plan(project)?;
        let replaced: Vec<String> = steps
            .iter()
            .filter(|s| s.action == SyncAction::Replace)
            .map(|s| format!("{} ({})", s.store, s.changes.join("; ")))
            .collect();
        if !replaced.is_empty() && !opts.yes && !opts.dry_run {
            return Err(EngineError::Input(format!(
                "{} would replace {} and rebuild {}: {}; run `lore sync --yes` to do it \
                 (nothing was changed)",
                project.path.display(),
                if replaced.len() == 1 {
                    "a store"
                } else {
                    "stores"
                },
                if replaced.len() == 1 {
                    "its index"
                } else {
                    "their indexes"
                },
                replaced.join(", ")
            )));
        }
        let real_dir =
            std::fs::canonicalize(project.dir()).unwrap_or_else(|_| project.dir().into());
        let not_in_project: Vec<String> = self
            .catalog
            .stores()?
            .into_iter()
            .filter(|s| own_store(s, &real_dir) && !project.stores.contains_key(&s.name))
            .map(|s| s.name)
            .collect();
        let mut pruned = Vec::new();
        if !opts.dry_run {
            for step in &mut steps {
                let def = &project.stores[&step.store];
                let req = project.add_request(&step.store, def);
                progress.message(&format!("{}: {:?}", step.store, step.action));
                let report = match step.action {
                    SyncAction::Create => self.add_store(&req, progress)?.1,
                    SyncAction::Replace => {
                        self.remove_store(&step.store)?;
                        self.add_store(&req, progress)?.1
                    }
                    SyncAction::Update => {
                        let rec = self.require_store(&step.store)?;
                        self.catalog.set_definition(
                            rec.id,
                            &req,
                            req.max_file_bytes.unwrap_or(self.config.max_file_bytes),
                        )?;
                        if let Some(mut web) = rec.web.clone() {
                            let d = crate::record::default_web();
                            web.max_pages = req.max_pages.unwrap_or(d.max_pages);
                            web.max_depth = req.max_depth.unwrap_or(d.max_depth);
                            self.catalog.set_web(rec.id, &web)?;
                        }
                        self.sync_one(&step.store, progress)?
                    }
                    SyncAction::Index => self.sync_one(&step.store, progress)?,
                };
                let info = self.store_info(&step.store)?;
                step.files = Some(info.stats.files);
                step.chunks = Some(info.stats.chunks);
                step.added = Some(report.added);
                step.changed = Some(report.changed);
                step.deleted = Some(report.deleted);
            }
            if opts.prune {
                for name in &not_in_project {
                    self.remove_store(name)?;
                    pruned.push(name.clone());
                }
            }
        }
        Ok(SyncReport {
            project: project.path.clone(),
            dry_run: opts.dry_run,
            steps,
            not_in_project,
            pruned,
        })
    }

    /// `sync` of one store, and its report.
    fn sync_one(
        &mut self,
        name: &str,
        progress: &dyn Progress,
    ) -> Result<crate::IndexReport, EngineError> {
        let mut reports = self.sync(&[name.to_string()], progress)?;
        Ok(reports.pop().unwrap_or_default())
    }
}

/// The project file of another project that defines the store `rec` by its name, when
/// `rec`'s source lies outside `project`'s folder: two projects' `[stores.code]` are one
/// store in a data dir, so sync refuses rather than replace the other's.
fn other_project(rec: &StoreRecord, project: &Project) -> Option<PathBuf> {
    let source = Path::new(&rec.source);
    if !source.is_absolute() || !matches!(rec.kind, StoreKind::Folder | StoreKind::Repo) {
        return None;
    }
    let dir = std::fs::canonicalize(project.dir()).unwrap_or_else(|_| project.dir().into());
    if source.starts_with(&dir) {
        return None;
    }
    let other = Project::find(source)?;
    let defines = Project::read(&other).is_ok_and(|p| p.stores.contains_key(&rec.name));
    (defines && other != project.path).then_some(other)
}
