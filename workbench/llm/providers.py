"""Resolving a model name to an endpoint: configured `[models.NAME]` or the embedded default."""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import AsyncIterator, Callable

from workbench.errors import BadInput
from workbench.llm.client import ChatClient, ResponseCache
from workbench.project.files import Project
from workbench.records import ModelConfig

DEFAULT_MODEL = "local"


class ModelNotFound(BadInput):
    title = "Unknown model"


def resolve_model(project: Project, name: str | None) -> tuple[str, ModelConfig]:
    models = project.config.models
    if not name:
        name = next(iter(models), DEFAULT_MODEL)
    if name in models:
        return name, models[name]
    if name == DEFAULT_MODEL:
        return name, ModelConfig()
    known = sorted(set(models) | {DEFAULT_MODEL})
    raise ModelNotFound(f"unknown model {name!r}: known {known} (add a [models.{name}] table to workbench.toml)")


def resolve_judge(project: Project, model_name: str, judge: str | None = None) -> tuple[str, ModelConfig]:
    """--judge, else workbench.toml `judge`, else the model under test."""
    return resolve_model(project, judge or project.config.judge or model_name)


def endpoint(config: ModelConfig) -> tuple[str | Callable[[], str], str]:
    """(base_url, endpoint identity for cache keys). The embedded server's URL is a callable:
    the server starts on the first call that the response cache cannot answer."""
    if config.base_url:
        return config.base_url, config.base_url.rstrip("/")
    from workbench.llm import server

    return (lambda: server.default_server().base_url), server.model_identity()


@asynccontextmanager
async def open_client(
    project: Project, name: str, config: ModelConfig, use_cache: bool = True, concurrency: int | None = None,
    cache: ResponseCache | None = None,
) -> AsyncIterator[ChatClient]:
    from workbench.project.files import config_error, missing_key_problems

    for key, message in missing_key_problems(project.config, [name]):  # before any call, exit 2
        raise config_error(project.root, key, message)
    base_url, ident = endpoint(config)
    own_cache = cache is None
    cache = cache or ResponseCache.for_state_dir(project.state_dir)
    client = ChatClient(name, config, base_url, ident, cache=cache, use_cache=use_cache, concurrency=concurrency)
    if not config.base_url:  # cancelling a call to the embedded server stops its generation
        from workbench.llm import server

        client.on_abort = server.interrupt_default
    try:
        yield client
    finally:
        await client.aclose()
        if own_cache:
            cache.close()


@asynccontextmanager
async def open_model_and_judge(
    project: Project, name: str, config: ModelConfig, judge_name: str, judge_config: ModelConfig,
    use_cache: bool = True, concurrency: int | None = None,
) -> AsyncIterator[tuple[ChatClient, ChatClient]]:
    """The model under test and its judge on one response cache (one client when the judge is the model)."""
    cache = ResponseCache.for_state_dir(project.state_dir)
    try:
        async with open_client(project, name, config, use_cache, concurrency, cache) as client:
            if judge_name == name:
                yield client, client
            else:
                async with open_client(project, judge_name, judge_config, use_cache, concurrency, cache) as judge:
                    yield client, judge
    finally:
        cache.close()
