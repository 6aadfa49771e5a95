/* The binder: resolves each model's SQL (via the AST) against the project's sources
 * and the other models, checks types with PostgreSQL's rules, and produces a typed
 * relational plan (plan.h). Models are bound in dependency order (ref() edges);
 * cycles and unknown names are diagnostics at the exact SQL position. */
#ifndef WEIR_SQL_BINDER_H
#define WEIR_SQL_BINDER_H

#include "project/project.h"
#include "sql/plan.h"

typedef struct BoundModel {
    const ModelDef *model;
    PlanNode *root;              /* NULL when binding failed */
    const char **dep_sources;    /* sorted, unique source names read by the model */
    int ndep_sources;
    const char **dep_models;     /* sorted, unique model names referenced with ref() */
    int ndep_models;
} BoundModel;

typedef struct BoundProject {
    const Project *project;
    BoundModel *models;          /* parallel to project->models (same index) */
    int nmodels;
    int *topo;                   /* model indexes in dependency order (upstream first) */
    int ntopo;                   /* models in a cycle are left out */
} BoundProject;

/* Bind every model. All memory (plans, names) comes from `arena`; problems are added
 * to dl with positions in the model's .sql file. Always returns a BoundProject; a
 * model that failed to bind has root == NULL. */
BoundProject *sql_bind_project(const Project *p, Arena *arena, DiagList *dl);

/* Index of a model in the bound project, or -1. */
int bound_model_index(const BoundProject *bp, const char *name);

#endif
