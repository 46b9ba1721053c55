"""Two real GRPO steps on CPU with TRL's ``environment_factory`` and the documented wiring
(``scripts/examples/grpo_trl.py``): a tiny Qwen3 built offline from a config, a tokenizer
trained here (TRL's own Qwen3 chat template, so TRL parses its tool calls), no hub access.

The random model is first taught (a few supervised steps) to call ``answer`` with either the
question's gold or "nobody", so the G rollouts of a group differ in reward and GRPO has an
advantage to follow. Asserted: the parameters changed; TRL logged exactly one reward column,
``KBGymSession`` (no duplicate reward function), and at every step its mean equals the mean
of the rewards the environments computed (read back from the LibraryLearner, which the
callback committed after each step). Slow, and skipped without the ``trl`` extra."""

from __future__ import annotations

import functools
import importlib.util
import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
torch = pytest.importorskip("torch")
pytest.importorskip("trl")
pytest.importorskip("datasets")

ROOT = Path(__file__).resolve().parents[1]
STEPS = 150  # supervised warm-up steps


def load_script():
    spec = importlib.util.spec_from_file_location("grpo_trl", ROOT / "scripts/examples/grpo_trl.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def rendered_prompts(model_dir, rows, session) -> list[str]:
    """The rows' prompts as TRL renders them: its training chat template, the session's
    public methods as tools (TRL's rule), the row's chat with reset()'s text appended."""
    import inspect

    from transformers import AutoTokenizer
    from trl.chat_template_utils import get_training_chat_template

    tok = AutoTokenizer.from_pretrained(model_dir)
    tools = [getattr(session, n) for n, _ in inspect.getmembers(type(session),
                                                                 inspect.isfunction)
             if n not in ("reset", "get_reward") and not n.startswith("_")]
    template = get_training_chat_template(tok)
    out = []
    for row in rows:
        user = row["prompt"][-1]["content"] + session.reset(**row)
        messages = row["prompt"][:-1] + [{"role": "user", "content": user}]
        out.append(tok.apply_chat_template(messages, tools=tools, chat_template=template,
                                           add_generation_prompt=True, tokenize=False))
    return out


def warm_up(model_dir, rows, universe, session):
    """Teach the tiny model to open with an answer call (gold or "nobody", half each)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir)
    examples = []
    for row, prompt in zip(rows, rendered_prompts(model_dir, rows, session)):
        for text in (universe.question(row["qid"]).golds[0], "nobody"):
            call = json.dumps({"name": "answer", "arguments": {"text": text}})
            target = f"<tool_call>\n{call}\n</tool_call><|im_end|>"
            p, t = tok(prompt)["input_ids"], tok(target)["input_ids"]
            examples.append((torch.tensor([p + t]), len(p)))
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    model.train()
    for step in range(STEPS):
        ids, n = examples[step % len(examples)]
        labels = ids.clone()
        labels[:, :n] = -100
        loss = model(input_ids=ids, labels=labels).loss
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.save_pretrained(model_dir)
    return float(loss.detach()), len(examples[0][0][0])


def test_two_grpo_steps_on_cpu_train_the_model_and_log_the_envs_reward(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    torch.manual_seed(0)
    grpo = load_script()
    from kbgym.rl import KBGymSession, library_callback, session_rows
    from kbgym.runs.learner import LibraryLearner
    from kbgym.worlds.people import UniverseConfig, generate
    from kbgym_agents.llm.skills import load_skill

    u = generate(UniverseConfig(n_people=60, n_cities=8, sizes=(40, 30, 20),
                                eval_sizes=(10, 6)))
    config = {"reward": "answer"}
    rows = session_rows(u, limit=2, system_prompt=load_skill("rl_session"))
    probe = KBGymSession(u, config)
    texts = [r["prompt"][0]["content"] for r in rows] * 3 + \
        [r["prompt"][1]["content"] for r in rows] + [n.text for n in u.nodes[:300]]
    # a first tokenizer renders the prompts; the tokenizer used is trained on them too, so
    # the long, repeated tool schemas take few tokens
    draft = grpo.build_tiny_model(tmp_path / "draft", texts, vocab_size=800)
    texts += rendered_prompts(draft, rows, probe) * 4
    model_dir = grpo.build_tiny_model(tmp_path / "tiny", texts, vocab_size=3000)
    loss, n_tokens = warm_up(model_dir, rows, u, probe)
    assert loss < 0.5 and n_tokens < 2000, (loss, n_tokens)
    from transformers import AutoModelForCausalLM

    before = {k: v.clone() for k, v in AutoModelForCausalLM.from_pretrained(
        model_dir).state_dict().items()}

    args = grpo.parser().parse_args([
        "--model", model_dir, "--cpu", "--max-steps", "2", "--num-generations", "4",
        "--max-completion-length", "48", "--max-tool-calls", "2", "--learning-rate", "1e-2",
        "--report-to", "none", "--out", str(tmp_path / "out")])
    learner = LibraryLearner(u, tmp_path / "out" / "library", config=config)
    factory = functools.partial(KBGymSession, u, config, learner=learner)
    trainer = grpo.make_trainer(args, rows, factory, [library_callback(learner)])
    assert trainer.reward_func_names == ["KBGymSession"]  # TRL's own column, no duplicate
    trainer.train()

    after = trainer.model.state_dict()
    changed = [k for k in before if not torch.equal(before[k], after[k].cpu())]
    assert changed, "no parameter changed in 2 GRPO steps"
    logs = [r for r in trainer.state.log_history if "rewards/KBGymSession/mean" in r]
    assert len(logs) == 2
    assert not any(k.startswith("rewards/") and "KBGymSession" not in k
                   for r in logs for k in r)
    commits = [json.loads(x) for x in (tmp_path / "out/library/rl_commits.jsonl")
               .read_text().splitlines()]
    assert len(commits) == 2
    for log, commit in zip(logs, commits):
        env_rewards = [r for k in commit["kept"] for r in k["group"]]
        assert len(env_rewards) == 4
        mean = sum(env_rewards) / 4
        assert log["rewards/KBGymSession/mean"] == pytest.approx(mean, abs=1e-6)
        assert log["reward"] == pytest.approx(mean, abs=1e-6)
    assert any(k["group"] and max(k["group"]) != min(k["group"])
               for c in commits for k in c["kept"])  # a group with an advantage to follow
