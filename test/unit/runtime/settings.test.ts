// The settings machinery on small tables of its own: joint parsing of every part's flags, shared
// settings, switches, secrets, and the two renderings (help, Markdown).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  booleanSetting,
  choiceSetting,
  defaultsOf,
  distinctSettings,
  integerSetting,
  readSettings,
  settingsMarkdown,
  stringSetting,
  usage,
  type SettingSection,
} from '../../../src/runtime/settings.ts';

const shared = stringSetting({ flag: 'shared-url', env: 'SHARED_URL', help: 'used by both', default: 'x' });
const a: SettingSection = {
  title: 'a',
  settings: {
    count: integerSetting({ flag: 'count', env: 'COUNT', help: 'how many', default: '1' }, 1, 9),
    on: booleanSetting({ flag: 'on', env: 'ON', help: 'a switch', default: 'false' }),
    url: shared,
  },
};
const b: SettingSection = {
  title: 'b',
  settings: {
    url: shared,
    // A secret whose value can be refused: the refusal must not show it.
    pin: choiceSetting({ flag: 'pin', env: 'PIN', help: 'a secret', secret: true }, ['0000']),
  },
};

describe('settings', () => {
  it('reads every part in one pass; a setting object declared by two parts is one flag', () => {
    const r = readSettings([a, b], ['--count=3', '--on', '--shared-url', 'y', '--pin=0000'], {});
    assert.deepEqual(r.problems, []);
    assert.deepEqual(r.values, [
      { count: 3, on: true, url: 'y' },
      { url: 'y', pin: '0000' },
    ]);
    assert.equal(distinctSettings([a, b]).length, 4);
  });

  it('refuses two different settings with one flag or one variable (a programming error)', () => {
    const clash = { title: 'c', settings: { count: integerSetting({ flag: 'count', env: 'OTHER', help: '' }, 0, 1) } };
    assert.throws(() => distinctSettings([a, clash]), /two settings declare --count/);
    const envClash = { title: 'c', settings: { n: integerSetting({ flag: 'n', env: 'COUNT', help: '' }, 0, 1) } };
    assert.throws(() => distinctSettings([a, envClash]), /two settings declare COUNT/);
  });

  it('a switch takes --flag or --flag=false, never a separate word', () => {
    assert.equal(readSettings([a], ['--on=false'], { ON: 'true' }).values[0]!.on, false);
    assert.equal(readSettings([a], [], { ON: '1' }).values[0]!.on, true);
    const r = readSettings([a], ['--on', 'false'], {});
    assert.match(r.problems.join(), /unexpected argument 2/);
  });

  it("never shows a secret setting's value, and says which part's values were refused", () => {
    const r = readSettings([a, b], ['--count', '12'], { PIN: 'hunter2' });
    assert.deepEqual(r.refused, [true, true]);
    assert.equal(r.problems.length, 2);
    assert.match(r.problems[0]!, /^--count \(or COUNT\): '12' is not an integer between 1 and 9$/);
    assert.match(r.problems[1]!, /^--pin \(or PIN\): its value \(not shown\) is not one of 0000$/);
    assert.doesNotMatch(r.problems.join(), /hunter2/);
  });

  it('defaultsOf parses the defaults, and refuses a bad one', () => {
    assert.deepEqual(defaultsOf(a.settings), { count: 1, on: false, url: 'x' });
    assert.throws(
      () => defaultsOf({ n: integerSetting({ flag: 'n', env: 'N', help: '', default: 'ten' }, 0, 1) }),
      /default of --n is not an integer/,
    );
  });

  it('help and Markdown list a shared setting once, under the first part, with defaults only', () => {
    const text = usage([a, b]);
    assert.equal(text.match(/--shared-url/g)?.length, 1);
    assert.match(text, /^b:\n {2}--pin +PIN +a secret$/m);
    const md = settingsMarkdown([a, b]);
    assert.match(md, /\| `--count` \| `COUNT` \| `1` \| how many \|/);
    assert.match(md, /\| `--pin` \| `PIN` \| none \| a secret \(a secret: never shown\) \|/);
  });
});
