"""The work of the site's conversions: conversion.runner.jobs (create, rasterize, read a page,
finish, re-run a page, a whole job inline) and conversion.runner.batch (a batched engine's claims
and batches). Below dispatch, above services."""
