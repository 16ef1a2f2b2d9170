"""The exact messages of a request, stored like its completion: the key's value never, capped."""

from workbench.llm.client import stored_messages


def test_messages_are_redacted_and_capped_keeping_start_and_end():
    secret = "sk-live-abcdef123456"
    msgs = [{"role": "system", "content": f"key {secret} here"},
            {"role": "user", "content": "START " + "x" * 5000 + " Question: who won?"}]
    kept, cut = stored_messages(msgs, 100_000, (secret,))
    assert not cut and secret not in kept[0].content and kept[1].content == msgs[1]["content"]
    kept, cut = stored_messages(msgs, 600, (secret,))
    assert cut and sum(len(m.content) for m in kept) <= 600 + 2 * 60
    user = kept[1].content
    assert user.startswith("START") and user.endswith("Question: who won?") and "characters cut" in user
    assert [m.role for m in kept] == ["system", "user"]
