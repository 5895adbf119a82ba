# GNU R (Debian's r-base-core 4.2, /usr/bin/Rscript --vanilla, base R only; its BLAS on
# one thread) doing statistics in one process per run, the seed through set.seed. Two
# kinds of work:
#   model=glm: a fixed data set (20,000 rows, 10 normal predictors, a logistic outcome)
#     drawn once; each unit fits a logistic regression (glm, IRLS) to a new bootstrap
#     resample of all the rows and prints its IRLS iterations and a coefficient: the
#     same size of fit each unit, so the cost per unit should stay about constant (a
#     control; the iterations, 5 in a trial, could change by one now and then).
#   model=hclust: each unit adds 200 points (5 dimensions, around 8 seeded centres)
#     to the data and clusters all of them anew (dist, then hclust with average linkage,
#     then cutree into 8 groups): the distance matrix and the linkage grow with the
#     square of the points, so the cost per unit should grow about quadratically.
corpus_apt_rscript=(r-base-core)

run_rscript() {
    cat >"$DRIVERS/r_stats.R" <<'EOF'
# Base R statistics, one printed line per unit. argv: model (glm|hclust) units seed
args <- commandArgs(trailingOnly = TRUE)
mode <- args[1]; units <- as.integer(args[2]); seed <- as.integer(args[3])
set.seed(seed)
if (mode == "glm") {
  n <- 20000; p <- 10
  X <- matrix(rnorm(n * p), n, p)
  beta <- rnorm(p) / 2
  y <- rbinom(n, 1, plogis(X %*% beta - 0.3))
  d <- data.frame(y = y, X)
  for (i in seq_len(units)) {
    b <- d[sample.int(n, n, replace = TRUE), ]
    fit <- glm(y ~ ., family = binomial, data = b)
    cat(sprintf("boot %d iter %d coef1 %.4f\n", i, fit$iter, coef(fit)[2]))
    flush(stdout())
  }
} else {
  centers <- matrix(rnorm(8 * 5, sd = 4), 8, 5)
  X <- NULL
  for (i in seq_len(units)) {
    k <- sample.int(8, 200, replace = TRUE)
    X <- rbind(X, centers[k, ] + matrix(rnorm(200 * 5), 200, 5))
    h <- hclust(dist(X), method = "average")
    g <- cutree(h, 8)
    cat(sprintf("cluster %d points %d largest %d\n", i, nrow(X), max(tabulate(g))))
    flush(stdout())
  }
}
EOF

    local v
    v=$(/usr/bin/Rscript --version 2>&1 | sed -n 's/^Rscript (R) version \([0-9.]*\).*$/R \1/p' | head -1)
    record rscript "statistical computing (R)" "$v" "apt:r-base-core" \
        "constant (control): one logistic regression (glm) fitted to a new bootstrap resample of the same data per unit" \
        "model=glm" '^boot \d+ iter ' 2 80 natural -- \
        /usr/bin/Rscript --vanilla "$DRIVERS/r_stats.R" glm @N@ '{rep}'
    record rscript "statistical computing (R)" "$v" "apt:r-base-core" \
        "grows about quadratically: each unit adds 200 points and clusters all of them anew (dist, hclust)" \
        "model=hclust" '^cluster \d+ points ' 5 20 natural -- \
        /usr/bin/Rscript --vanilla "$DRIVERS/r_stats.R" hclust @N@ '{rep}'
}
