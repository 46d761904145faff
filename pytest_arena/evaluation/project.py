"""A project ready to run: its file, scorers, hooks and model connectors."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pytest_arena.connectors import CONNECTORS, Connector, Request, build_connector, providers
from pytest_arena.connectors.registry import known_models
from pytest_arena.engine.budget import Budget
from pytest_arena.engine.calls import Call, CallResult, Engine
from pytest_arena.engine.limits import Limits
from pytest_arena.engine.tool_loop import ToolSet
from pytest_arena.evaluation import user_code
from pytest_arena.evaluation.judge import Judge, JudgeError
from pytest_arena.evaluation.project_hooks import ProjectHooks, load_hooks
from pytest_arena.evaluation.project_tools import load_tools
from pytest_arena.evaluation.samples import Sampling, sampling_of
from pytest_arena.record import json_safe
from pytest_arena.scorers.base import Scorer, ScoresOutputs
from pytest_arena.scorers.builtins import BUILTINS
from pytest_arena.scorers.discovery import ScorerEntry, ScorerSet, discover
from pytest_arena.scorers.script import ScriptScorer
from pytest_arena.scorers.typed import TypedScorer
from pytest_arena.spec import Case, ProjectFile, SpecError, load_project
from pytest_arena.spec.errors import Problem, did_you_mean, location
from pytest_arena.spec.loader import CaseProblem, check_dataset_scorers, drop_dataset
from pytest_arena.spec.python_files import project_package
from pytest_arena.spec.schema import ComponentSpec
from pytest_arena.spec.text_files import is_file, read_text
from pytest_arena.spec.validation import dotted

DEFAULT_SCORER = "exact_match"
_EXAMPLE_FILES = {"rubric_file": "rubric.md", "schema_file": "schema.json"}


@dataclass(frozen=True)
class Component:
    """One scorer of a plan, with its options, weight and whether it must pass."""

    name: str
    scorer: str
    entry: ScorerEntry
    options: dict[str, Any]
    weight: float = 1.0
    required: bool = False
    bound: ScoresOutputs | None = None  # the entry's scorer with `options` validated and bound
    timeout: float | None = None  # the scoring entry's `timeout:`, never one of the options

    @property
    def grader(self) -> ScoresOutputs:
        """What grades the outputs: the bound scorer, else the entry's (reading context.options)."""
        return self.bound if self.bound is not None else self.entry.scorer

    @property
    def time_limit(self) -> float | None:
        """Seconds one call of the scorer may take: the entry's `timeout:`, else the scorer
        class's `timeout`. None for a script, which its own `timeout` option bounds."""
        if isinstance(self.entry.scorer, ScriptScorer):
            return None
        if self.timeout is not None:
            return self.timeout
        limit = getattr(self.entry.scorer, "timeout", user_code.DEFAULT_TIMEOUT)
        return None if limit is None else float(limit)


@dataclass(frozen=True)
class Plan:
    """How one case is scored: one scorer, or a weighted contract of several."""

    components: tuple[Component, ...]
    contract: bool = False
    threshold: float | None = None  # the score the case needs, with one scorer or several

    @property
    def scorer(self) -> str:
        return "+".join(c.name for c in self.components)


class PlanError(Exception):
    """A case that cannot be scored as written; the message says why and where."""


@dataclass
class Project:
    file: ProjectFile
    scorers: ScorerSet
    hooks: ProjectHooks
    connector_types: Mapping[str, type[Connector]] = field(default_factory=lambda: CONNECTORS)
    engine: Engine = field(default_factory=Engine)  # the run's engine, shared by all projects
    tools: ToolSet | None = None  # the functions of the project's tools.py
    _connectors: dict[str, Connector] = field(default_factory=dict)
    _limits: dict[str, Limits] = field(default_factory=dict)
    _budget: Budget | None = None
    _plans: dict[tuple[Any, ...], Plan] = field(default_factory=dict)  # shared by like cases
    _board: dict[str, Any] | None = None
    repeat: tuple[int, int] | None = None  # --arena-repeat: (min, max) samples of every case

    @property
    def name(self) -> str:
        return self.file.name

    @property
    def root(self) -> Path:
        return self.file.root

    def connector(self, key: str, asked_by: str = "") -> Connector:
        """The connector for model `key`; SpecError if the project cannot reach it."""
        if key not in self._connectors:
            file = self.file
            self._connectors[key] = build_connector(
                key, file.spec.models.define, file.path, file.lines, asked_by, self.connector_types
            )
        return self._connectors[key]

    def limits(self, key: str) -> Limits:
        """How the engine calls model `key`."""
        if key not in self._limits:
            definition = self.file.spec.models.define.get(key)
            self._limits[key] = Limits.of(definition, self.connector(key))
        return self._limits[key]

    @property
    def budget(self) -> Budget:
        """The project's own ceiling on spending (`budget: max_cost:`), apart from the run's."""
        if self._budget is None:
            where = f"budget.max_cost in {self.file.path.name} of project {self.name}"
            self._budget = self.engine.new_budget(self.file.spec.budget.max_cost, where)
        return self._budget

    def call(
        self, key: str, request: Request, tools: bool = False, fresh: bool = False
    ) -> CallResult:
        """Ask model `key` now, through the engine (cache, limits, retries, budgets); with
        `tools`, offering the project's tools in a tool loop (a case's call, not a judge's);
        `fresh`: the model asked again, not the response cache."""
        return self.engine.call(
            self.connector(key),
            request,
            self.limits(key),
            (self.budget,),
            self.tools if tools else None,
            fresh=fresh,
        )

    def submit(self, key: str, request: Request, fresh: bool = False) -> Call:
        """Start asking model `key` ahead of time, for a case (with the project's tools);
        `engine.wait(call)` gives the result; `fresh`: as for `call`."""
        return self.engine.submit(
            self.connector(key), request, self.limits(key), (self.budget,), self.tools, fresh
        )

    def runs_on(self, case: Case, key: str) -> bool:
        """Whether `case` runs on model `key`: its `models:` (its own or its dataset's) names
        the key or one of the tags of the key's definition, or it has no `models:`."""
        if case.models is None or key in case.models:
            return True
        definition = self.file.spec.models.define.get(key)
        return definition is not None and not set(definition.tags).isdisjoint(case.models)

    def sampling(self, case: Case) -> Sampling:
        """How many samples of `case` to draw and the pass rate they need: --arena-repeat,
        else the case's (or its dataset's) `repeat`, else the project's, else one."""
        spec = self.file.spec
        own = None if spec.repeat is None else (spec.repeat.min, spec.repeat.max)
        low, high = self.repeat or case.repeat or own or (1, 1)
        rate = _first(case.min_pass_rate, spec.min_pass_rate)
        return sampling_of(low, high, 1.0 if rate is None else rate, spec.flaky)

    def default_models(self) -> list[str]:
        return list(self.file.spec.models.default)

    def plan(self, case: Case) -> Plan:
        """How `case` is graded; PlanError, naming file and line, if that cannot work.

        A case's own `scoring` contract comes first, then its `eval_type`, then the
        project's `scoring`, then `scorers.default`, then exact_match. The case's `options`
        are laid over each scorer's (over `scorers.options`, then a component's `params`);
        its `threshold` decides a case graded by one scorer too.
        """
        key = self._plan_key(case)
        plan = self._plans.get(key) if key is not None else None
        if plan is None:
            plan = self._plan(case)
            if key is not None:
                self._plans[key] = plan
        else:
            self._check_shared(plan, case)
        return plan

    def _check_shared(self, plan: Plan, case: Case) -> None:
        """A plan made for a like case was checked with that case's reference: PlanError for
        what its scorers find wrong with this one's (`problem_in`)."""
        for index, component in enumerate(plan.components):
            if not isinstance(component.bound, TypedScorer):
                continue

            def where(option: str, index: int = index) -> str:
                if plan.contract:
                    return self._at(("scoring", index))
                return location(case.source, case.line_of("options"))

            shared = self.file.spec.scorers.options.get(component.scorer, {})
            self._check_case(
                component.scorer, component.bound, component.options, shared, where, case
            )

    def _plan_key(self, case: Case) -> tuple[Any, ...] | None:
        """What a case's plan depends on when it sets no scoring and no options of its own
        (most cases): one plan, its scorers bound and checked once, serves them all. None:
        the case's own settings make its plan."""
        if case.scoring is not None or case.options:
            return None
        if case.eval_type is None and self.file.spec.scoring is not None:
            return ("scoring", case.threshold)
        return ("scorer", case.eval_type, case.threshold)

    def _plan(self, case: Case) -> Plan:
        spec = self.file.spec
        if case.scoring is not None:
            self._check_eval_type(case)
            return self._contract(
                case.scoring,
                lambda i: location(case.source, case.line_of(f"scoring.{i}")),
                case,
            )
        if case.eval_type is None and spec.scoring is not None:
            return self._contract(spec.scoring, lambda i: self._at(("scoring", i)), case)
        name = case.eval_type or spec.scorers.default or DEFAULT_SCORER
        entry = self.scorers.get(name)
        if entry is None:
            source = "eval_type" if case.eval_type else "scorers.default"
            where = location(case.source, case.line_of("eval_type"))
            if not case.eval_type:
                where = self._at(("scorers", "default"))
            raise PlanError(f"{where}: {source}: {self.scorers.unknown(name)}")
        shared = _unless(spec.scorers.options.get(name, {}), case.options)
        options = {**shared, **case.options}
        bound = self._bind(
            name,
            entry,
            options,
            shared,
            lambda option: location(case.source, case.line_of("options")),
            case,
        )
        component = Component(name, name, entry, options, bound=bound)
        return Plan((component,), threshold=case.threshold)

    def _check_eval_type(self, case: Case) -> None:
        """PlanError for an `eval_type` beside the case's own `scoring`, which wins: the
        eval_type would never grade. (A row's scoring beside its dataset's eval_type is
        the row's own choice: that eval_type grades the dataset's other rows.)"""
        if case.eval_type is None:
            return
        if case.dataset is not None:
            datasets = self.file.spec.datasets
            given = next((d.eval_type for d in datasets if d.path == case.dataset), None)
            if case.eval_type == given:
                return
        where = location(case.source, case.line_of("eval_type"))
        fix = f"remove eval_type: {case.eval_type}"
        if all(c.scorer != case.eval_type for c in case.scoring or ()):
            fix += f", or, for it to grade too, add {{scorer: {case.eval_type}}} to the scoring"
        raise PlanError(
            f"{where}: eval_type: the case's own scoring grades it, so its eval_type would"
            f" never be used\n  fix: {fix}"
        )

    def _contract(
        self, scoring: Sequence[ComponentSpec], at: Callable[[int], str], case: Case
    ) -> Plan:
        """The plan of a contract: each component's options with the case's own that its
        scorer takes laid over them; PlanError, at the case's `options`, for one none takes."""
        spec = self.file.spec
        parts = [self._component(c, at(i), case) for i, c in enumerate(scoring)]
        stray = [k for k in case.options if not any(_takes(p.entry, k) for p in parts)]
        if stray:
            where = location(case.source, case.line_of("options"))
            takes = "; ".join(
                f"{p.scorer} takes {_option_names(p.entry) or 'none'}"
                for p in dict((p.scorer, p) for p in parts).values()
            )
            raise PlanError(
                f"{where}: options: no scorer of the case's contract takes the option"
                f" {', '.join(repr(k) for k in stray)} ({takes})\n  fix: correct or remove"
                " it; a case's options reach each component of its scoring whose scorer takes"
                " them"
            )
        return Plan(tuple(parts), True, _first(case.threshold, spec.threshold))

    def _component(self, spec: ComponentSpec, where: str, case: Case) -> Component:
        """One component of a contract: `scorers.options` of its scorer, then its `params`,
        then the case's own `options` that its scorer takes."""
        if spec.command is not None:
            scorer = ScriptScorer.from_command(spec.label, spec.command)
            why = scorer.unstartable(self.root)
            if why is not None:
                raise PlanError(
                    f"{where}: scoring: {scorer.shown} cannot be started: {why}\n  fix: give"
                    " a path relative to the folder holding arena.yaml, or a program on PATH"
                )
            options = dict(spec.params)
            if spec.timeout is not None:
                options["timeout"] = spec.timeout
            options.update(case.options)  # a script takes any option
            self._check_script(spec.label, options, {}, self._where(where, case.options, case))
            script = ScorerEntry(scorer, None, None, None, scorer.shown)
            return Component(spec.label, scorer.shown, script, options, spec.weight, spec.required)
        assert spec.scorer is not None
        found = self.scorers.get(spec.scorer)
        if found is None:
            raise PlanError(f"{where}: scoring: {self.scorers.unknown(spec.scorer)}")
        entry = found
        own = {k: v for k, v in case.options.items() if _takes(entry, k)}
        options = {**spec.params}
        is_script = isinstance(entry.scorer, ScriptScorer)
        if spec.timeout is not None and is_script:  # a script's time limit is its option
            options["timeout"] = spec.timeout
        options.update(own)
        shared = _unless(self.file.spec.scorers.options.get(spec.scorer, {}), options)
        options = {**shared, **options}
        bound = self._bind(spec.scorer, entry, options, shared, self._where(where, own, case), case)
        timeout = None if is_script or spec.timeout is None else float(spec.timeout)
        return Component(
            spec.label, spec.scorer, entry, options, spec.weight, spec.required, bound, timeout
        )

    @staticmethod
    def _where(component: str, own: Mapping[str, Any], case: Case) -> Callable[[str], str]:
        """Where a component's option is written: the case's `options` for one of the case's
        own, else the component's line."""

        def where(option: str) -> str:
            if option in own:
                return location(case.source, case.line_of("options"))
            return component

        return where

    def _bind(
        self,
        name: str,
        entry: ScorerEntry,
        options: dict[str, Any],
        shared: dict[str, Any],
        where: Callable[[str], str],  # for the option at fault; made only for a message
        case: Case,
    ) -> ScoresOutputs | None:
        """Check `options` against the scorer's options_model; a builtin (a TypedScorer) gets
        them bound, validated this once for every output it grades. PlanError if they are wrong.
        """
        if name == "llm_judge":
            self._check_judge(options, shared, where)
        if isinstance(entry.scorer, ScriptScorer):
            self._check_script(name, options, shared, where)
        model = entry.options_model
        if model is None:
            return None
        try:
            if isinstance(entry.scorer, TypedScorer):
                bound = entry.scorer.bind(options)
                self._check_files(name, bound, shared, where)
                self._check_case(name, bound, options, shared, where, case)
                return bound
            model.model_validate(options)  # a custom scorer reads them from context.options
            return None
        except ValidationError as exc:
            errors = exc.errors()
            first = str(errors[0]["loc"][0]) if errors and errors[0]["loc"] else ""
            if first in shared and shared.get(first) is options.get(first):
                at = f"{self._at(('scorers', 'options', name, first))}: scorers.options.{name}"
            elif not first and all(shared.get(k) is v for k, v in options.items()):
                # options that do not go together, all written in scorers.options
                at = f"{self._at(('scorers', 'options', name))}: scorers.options.{name}"
            else:
                at = where(first)
            raise PlanError(f"{at}: {_options_problem(name, model, exc)}") from None

    def _check_case(
        self,
        name: str,
        bound: TypedScorer[Any],
        options: dict[str, Any],
        shared: dict[str, Any],
        where: Callable[[str], str],
        case: Case,
    ) -> None:
        """PlanError for what the bound scorer finds wrong with this case (`problem_in`),
        at the line of the case's reference or metadata, or of the option that holds it."""
        tools = [tool.name for tool in self.tools.tools] if self.tools is not None else None
        found = bound.problem_in(case, tools)
        if found is None:
            return
        option, said = found
        if option in ("reference", "metadata"):
            at = location(case.source, case.line_of(option))
        elif option in shared and shared[option] is options.get(option):
            at = f"{self._at(('scorers', 'options', name, option))}: scorers.options.{name}"
        else:
            at = where(option)
        raise PlanError(f"{at}: {name}: {said}")

    def _check_script(
        self,
        name: str,
        options: dict[str, Any],
        shared: dict[str, Any],
        where: Callable[[str], str],
    ) -> None:
        """PlanError, at the option's line, for a script's `timeout` or `pass_threshold` that
        it could not be run or graded with."""
        found = ScriptScorer.option_problem(options)
        if found is None:
            return
        option, said = found
        if option in shared and shared[option] is options.get(option):
            at = f"{self._at(('scorers', 'options', name, option))}: scorers.options.{name}"
        else:
            at = where(option)
        raise PlanError(f"{at}: scorer '{name}': {said}")

    def _check_judge(
        self, options: dict[str, Any], shared: dict[str, Any], where: Callable[[str], str]
    ) -> None:
        """llm_judge's model (its option `model`, else `judge.model`) can be reached; PlanError
        at the line where that model is named, if not."""
        given = options.get("model")
        key = str(given or self.file.spec.judge.model)
        try:
            self.connector(key, "the judge")
        except SpecError as exc:
            if key in self.file.spec.models.define:  # its definition is wrong: said at its line
                raise PlanError(
                    f"{where('model')}: the judge of llm_judge: {exc.format()}"
                ) from None
            problem = exc.problems[0]
            said = problem.message.replace(" (from the judge)", "")
            fix = f"\n  fix: {problem.hint}" if problem.hint else ""
            if given is None:
                at = f"{self._at(('judge', 'model'))}: judge.model"
                raise PlanError(f"{at}: {said}{fix}") from None
            if shared.get("model") is given:
                at = f"{self._at(('scorers', 'options', 'llm_judge', 'model'))}"
                at += ": scorers.options.llm_judge"
            else:
                at = where("model")
            raise PlanError(f"{at}: the judge of llm_judge: {said}{fix}") from None

    def _check_files(
        self,
        name: str,
        bound: TypedScorer[Any],
        shared: dict[str, Any],
        where: Callable[[str], str],
    ) -> None:
        """The files an option names (`rubric_file`, `schema_file`: `*_file`) exist in the
        project, are UTF-8 text and suit the scorer (`check_file`), so a bad one is said
        here, once per case, not as a traceback per item."""
        for key, value in vars(bound.options).items():
            if not key.endswith("_file") or not isinstance(value, str):
                continue
            if shared.get(key) == value:
                at = f"{self._at(('scorers', 'options', name, key))}: scorers.options.{name}"
            else:
                at = where(key)
            path = self.file.root / value
            try:
                if not is_file(path) and path.is_dir():
                    example = Path(value, _EXAMPLE_FILES.get(key, "file.txt")).as_posix()
                    raise PlanError(
                        f"{at}: {key} '{value}' is a folder ({path}), not a file\n  fix: name"
                        f" a file, relative to the folder holding arena.yaml, such as"
                        f" {key}: {example}"
                    )
                if not is_file(path):
                    raise PlanError(
                        f"{at}: {key} '{value}' does not exist (looked in {self.file.root});"
                        " paths are relative to the folder holding arena.yaml"
                    )
                read_text(path)
                bound.check_file(key, path)
            except SpecError as exc:
                raise PlanError(f"{exc.format()}\n  (the {key} of {name}, named at {at})") from None

    def _at(self, loc: tuple[str | int, ...]) -> str:
        return location(self.file.path, self.file.lines.line(loc))

    def judge(self, case: Case, sample: int = 0) -> Judge:
        """A judge bound to `case` (its `sample`), using the project's judge settings."""
        settings = self.file.spec.judge
        return Judge(
            case, self._judge_call, settings.model, settings.samples, settings.reduce, sample
        )

    def _judge_call(self, key: str, request: Request) -> CallResult:
        """A judge's call, as `call`; JudgeError, saying where the model is named, for a judge
        model that cannot be made. llm_judge's plan checked its model already: this is for
        `context.judge` in a scorer of the project's own, as the judge is made only when asked.
        """
        try:
            self.connector(key, "the judge")
        except SpecError as exc:
            raise JudgeError(self._judge_problem(key, exc)) from None
        return self.call(key, request)

    def _judge_problem(self, key: str, exc: SpecError) -> str:
        """Why judge model `key` cannot be made, at the line of its definition or of the
        `judge.model` that names it."""
        spec = self.file.spec
        named = key == spec.judge.model and "model" in spec.judge.model_fields_set
        if key in spec.models.define:  # its definition is wrong: said at its line
            at = f": judge.model at line {self.file.lines.line(('judge', 'model'))}"
            said = f" (model '{key}' is the judge{at if named else ''})"
            return SpecError([replace(p, message=p.message + said) for p in exc.problems]).format()
        problem = exc.problems[0]
        if named:
            said = problem.message.replace(" (from the judge)", "")
            fix = f"\n  fix: {problem.hint}" if problem.hint else ""
            return f"{self._at(('judge', 'model'))}: judge.model: {said}{fix}"
        said = problem.message.replace("(from the judge)", "(given to context.judge)")
        return SpecError([replace(problem, message=said)]).format()

    def board(self) -> dict[str, Any]:
        """The project's leaderboard settings, made once: every record of the project holds
        this one dict (read it, do not change it)."""
        if self._board is None:
            self._board = self._make_board()
        return self._board

    def _make_board(self) -> dict[str, Any]:
        spec = self.file.spec
        board: dict[str, Any] = {
            "weights": dict(spec.metrics.weights),
            "lower_is_better": list(spec.metrics.lower_is_better),
        }
        if spec.metrics.weights:  # where each is written, for the board to say
            board["weights_at"] = {
                name: self._at(("metrics", "weights", name)) for name in spec.metrics.weights
            }
        if spec.metrics.lower_is_better:
            board["lower_is_better_at"] = {
                name: self._at(("metrics", "lower_is_better", i))
                for i, name in enumerate(spec.metrics.lower_is_better)
            }
        if spec.metrics.pass_k is not None:
            board["pass_k"] = spec.metrics.pass_k
        if spec.gate is not None:
            gate = spec.gate.model_dump(exclude_none=True)
            places: list[tuple[str, ...]] = [("all", m) for m in spec.gate.all]
            places += [("models", k, m) for k, limits in spec.gate.models.items() for m in limits]
            gate["at"] = {".".join(p): self._at(("gate", *p)) for p in places}
            board["gate"] = gate
        safe: dict[str, Any] = json_safe(board)  # once: records send it as it is
        return safe


def load(
    path: Path,
    plugin_scorers: Sequence[tuple[str, type[Scorer]]] = (),
    connectors: Mapping[str, type[Connector]] = CONNECTORS,
) -> Project:
    """Load the project whose `arena.yaml` is at `path`; SpecError for a project-wide problem.

    `plugin_scorers` are (plugin name, Scorer class) pairs that installed plugins offer.
    """
    file = load_project(path, keep_raw=False)
    _check_gate_models(file)
    _check_case_models(file)
    package = project_package(file.root)
    hooks = load_hooks(file.root, package)
    scorers = discover(
        file.root,
        package,
        BUILTINS,
        plugin_scorers,
        user_code.import_file,
        lambda cls: user_code.call(cls, (), user_code.DEFAULT_TIMEOUT),  # its __init__
    )
    _check_options_names(file, scorers)
    _check_unused_settings(file)
    check_dataset_scorers(file, scorers)
    tools = load_tools(file.root, package, file.spec.tools)
    project = Project(file, scorers, hooks, connectors, tools=tools)
    _check_judge_models(project)
    return project


def _check_judge_models(project: Project) -> None:
    """A model defined in models.define and named as the judge (`judge.model`, llm_judge's
    `model` in scorers.options or scoring) that cannot be made is the project's problem, said
    once at its definition, not an error of every case against the model under test; but
    only when a case grades with it: a judge nobody asks for stops nothing."""
    spec, lines = project.file.spec, project.file.lines
    written = "model" in spec.judge.model_fields_set  # else the default, sim_judge
    used = _judges_used(project.file)
    named: dict[str, tuple[str | int, ...]] = {}
    if ("judge", "model") in used:
        named[spec.judge.model] = ("judge", "model")
    places: list[tuple[dict[str, Any], tuple[str | int, ...]]] = [
        (spec.scorers.options.get("llm_judge", {}), ("scorers", "options", "llm_judge"))
    ]
    places += [
        (c.params, ("scoring", i, "params"))
        for i, c in enumerate(spec.scoring or ())
        if c.scorer == "llm_judge"
    ]
    for options, loc in places:
        if isinstance(options.get("model"), str) and (*loc, "model") in used:
            named.setdefault(options["model"], (*loc, "model"))
    problems = []
    for key, loc in named.items():
        if key not in spec.models.define:  # an unknown key: said where a scorer asks for it
            continue
        try:
            project.connector(key, "the judge")
        except SpecError as exc:
            at = f": {dotted(loc)} at line {lines.line(loc)}"
            said = f" (model '{key}' is the judge{at if written or loc[0] != 'judge' else ''})"
            problems += [replace(p, message=p.message + said) for p in exc.problems]
    if problems:
        raise SpecError(problems)


def _judges_used(file: ProjectFile) -> set[tuple[str | int, ...]]:
    """Where the judge models that the cases' llm_judge asks for are named, of `judge.model`,
    `scorers.options.llm_judge.model` and `scoring[i].params.model`, as `Project.plan` would
    choose their scorers and options. (A model a case names itself is checked with its plan.)
    """
    spec = file.spec
    shared = spec.scorers.options.get("llm_judge", {})
    default = spec.scorers.default or DEFAULT_SCORER
    used: set[tuple[str | int, ...]] = set()
    for case in file.cases:
        judged: list[tuple[Mapping[str, Any], tuple[str | int, ...] | None]] = []
        if case.scoring is not None:
            judged = [(c.params, None) for c in case.scoring if c.scorer == "llm_judge"]
        elif case.eval_type is None and spec.scoring is not None:
            judged = [
                (c.params, ("scoring", i, "params", "model"))
                for i, c in enumerate(spec.scoring)
                if c.scorer == "llm_judge"
            ]
        elif (case.eval_type or default) == "llm_judge":
            judged = [({}, None)]
        for own, loc in judged:
            given = {**shared, **own, **case.options}.get("model")
            if not given:
                used.add(("judge", "model"))
            elif "model" in case.options:  # the case's own: checked with its plan
                continue
            elif shared.get("model") is given and "model" not in own:
                used.add(("scorers", "options", "llm_judge", "model"))
            elif loc is not None:
                used.add(loc)
    return used


def _check_options_names(file: ProjectFile, scorers: ScorerSet) -> None:
    """Options for a scorer nobody has would be ignored without a word. (When a scorer file
    failed to load, it may have defined it: that file's error is said instead.)"""
    if scorers.problems:
        return
    problems = [
        Problem(
            file.path,
            file.lines.line(("scorers", "options", name)),
            f"options for '{name}', which no scorer is named, would never be used",
            key=f"scorers.options.{name}",
            hint=" ".join(filter(None, [did_you_mean(name, scorers.names()), "known scorers:"]))
            + f" {', '.join(scorers.names())}",
        )
        for name in file.spec.scorers.options
        if scorers.get(name) is None
    ]
    if problems:
        raise SpecError(problems)


def _check_unused_settings(file: ProjectFile) -> None:
    """A setting that another always wins over would be ignored without a word: the
    project's `scorers.default` beside its `scoring`, a `threshold` with no contract to
    apply to (SpecError), a dataset's `eval_type` beside its `scoring` (that dataset's
    problem). A case's `eval_type` beside its own `scoring` is said with its plan."""
    spec, lines = file.spec, file.lines
    problems = []
    if spec.scoring is not None and spec.scorers.default is not None:
        default = spec.scorers.default
        problems.append(
            Problem(
                file.path,
                lines.line(("scorers", "default")),
                "cases that name no scorer are graded by the project's scoring, so"
                " scorers.default would never be used",
                key="scorers.default",
                hint=f"remove it, or give the cases it is for eval_type: {default} (or add"
                f" {{scorer: {default}}} to scoring for it to grade every case too)",
            )
        )
    contracts = spec.scoring is not None or any(c.scoring is not None for c in file.cases)
    if spec.threshold is not None and not contracts:
        problems.append(
            Problem(
                file.path,
                lines.line(("threshold",)),
                "the project's threshold is the pass mark of cases graded by a scoring"
                " contract, and no case is, so it would never be used",
                key="threshold",
                hint="move it onto the cases (or the datasets) it is for, where it decides"
                " whatever grades them, or grade them by a scoring contract",
            )
        )
    if problems:
        raise SpecError(problems)
    for index, dataset in enumerate(spec.datasets):
        if dataset.eval_type is None or dataset.scoring is None:
            continue
        loc = ("datasets", index, "eval_type")
        found = Problem(
            file.path,
            lines.line(loc),
            "rows that name no scorer are graded by the dataset's scoring, so its eval_type"
            " would never be used",
            key=dotted(loc),
            hint=f"remove eval_type: {dataset.eval_type} (a row's own eval_type still grades"
            f" that row), or add {{scorer: {dataset.eval_type}}} to the dataset's scoring",
        )
        drop_dataset(file, index, [found])


def _check_gate_models(file: ProjectFile) -> None:
    """A gate on a model key nobody defined would never be checked: say so while loading."""
    gate, defined = file.spec.gate, file.spec.models.define
    known = known_models(defined)
    problems = []
    for key in gate.models if gate is not None else {}:
        if key not in known and providers.split(key) is None:
            hint = did_you_mean(key, known)
            problems.append(
                Problem(
                    file.path,
                    file.lines.line(("gate", "models", key)),
                    f"the gate names model '{key}', which is neither defined in models.define"
                    " nor a builtin",
                    key=f"gate.models.{key}",
                    hint=(hint + " " if hint else "") + f"known models: {', '.join(known)}",
                )
            )
    if problems:
        raise SpecError(problems)


def _check_case_models(file: ProjectFile) -> None:
    """Every name in a `models:` of a dataset or case is a model key or a tag of a model
    definition: a dataset's mistake is that dataset's problem, a case's is that case's."""
    defined = file.spec.models.define
    keys = known_models(defined)
    tags = sorted({tag for definition in defined.values() for tag in definition.tags})

    def unknown(names: Sequence[str], path: Path, line: int | None, key: str) -> Problem | None:
        for name in names:
            if name not in keys and name not in tags:
                hint = did_you_mean(name, [*keys, *tags])
                known = f"model keys: {', '.join(keys)}"
                known += f"; tags in models.define: {', '.join(tags)}" if tags else ""
                return Problem(
                    path,
                    line,
                    f"'{name}' is neither a model key nor a tag of a model in models.define",
                    key=key,
                    hint=(hint + " " if hint else "") + known,
                )
        return None

    for index, dataset in enumerate(file.spec.datasets):
        loc = ("datasets", index, "models")
        found = unknown(dataset.models or (), file.path, file.lines.line(loc), dotted(loc))
        if found is not None:
            drop_dataset(file, index, [found])
    kept = []
    for case in file.cases:
        found = unknown(case.models or (), case.source, case.line_of("models"), "models")
        if found is None:
            kept.append(case)
        else:
            file.problems.append(CaseProblem(case.id, found, case.dataset))
    file.cases[:] = kept


def _first(*values: float | None) -> float | None:
    return next((v for v in values if v is not None), None)


def _unless(shared: dict[str, Any], given: Mapping[str, Any]) -> dict[str, Any]:
    """The options of `scorers.options` that `given` (a case's, a component's) leaves: those
    that reach the scorer, as said of an option at fault."""
    return {k: v for k, v in shared.items() if k not in given} if given else shared


def _takes(entry: ScorerEntry, option: str) -> bool:
    """Whether the scorer takes `option`: a field of its options model, or any option for
    a scorer that reads context.options unchecked (or whose model lets other keys in)."""
    model = entry.options_model
    if model is None or model.model_config.get("extra") != "forbid":
        return True
    return any((f.alias or name) == option for name, f in model.model_fields.items())


def _option_names(entry: ScorerEntry) -> str:
    model = entry.options_model
    if model is None:
        return ""
    return ", ".join(f.alias or n for n, f in model.model_fields.items())


def _options_problem(name: str, model: type[Any], exc: ValidationError) -> str:
    valid = ", ".join(f.alias or n for n, f in model.model_fields.items()) or "none"
    parts = []
    for error in exc.errors(include_url=False):
        option = ".".join(str(p) for p in error["loc"])
        if not option:  # the options together (one excludes another)
            parts.append(error["msg"].removeprefix("Value error, "))
        elif error["type"] == "extra_forbidden":
            parts.append(f"unknown option '{option}'")
        else:
            parts.append(f"option '{option}': {error['msg']}")
    return f"scorer '{name}': {'; '.join(parts)} (valid options: {valid})"
