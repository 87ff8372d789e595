-- Workspace names become unique in the installation, and project names unique in
-- their workspace, so that a person can name them instead of giving an id.
-- Existing duplicates: the oldest keeps its name; each later one gets the first
-- 8 characters of its id appended (and its name shortened to fit 100 characters).
UPDATE workspaces SET name = substr(name, 1, 89) || ' (' || substr(id, 1, 8) || ')'
WHERE EXISTS (
    SELECT 1 FROM workspaces o
    WHERE o.name = workspaces.name
      AND (o.created_at < workspaces.created_at
           OR (o.created_at = workspaces.created_at AND o.id < workspaces.id))
);
CREATE UNIQUE INDEX workspaces_name ON workspaces (name);

UPDATE projects SET name = substr(name, 1, 89) || ' (' || substr(id, 1, 8) || ')'
WHERE EXISTS (
    SELECT 1 FROM projects o
    WHERE o.workspace_id = projects.workspace_id AND o.name = projects.name
      AND (o.created_at < projects.created_at
           OR (o.created_at = projects.created_at AND o.id < projects.id))
);
CREATE UNIQUE INDEX projects_name ON projects (workspace_id, name);
