import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ViewMemory, type KeyValueStore } from './last-view.ts';

function mapStore(): KeyValueStore & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return { data, getItem: (k) => data.get(k) ?? null, setItem: (k, v) => void data.set(k, v), removeItem: (k) => void data.delete(k) };
}

test('the table href keeps the last query, and survives a reload through the store', () => {
  const store = mapStore();
  const m = new ViewMemory(() => store);
  assert.equal(m.href(), '/');
  let calls = 0;
  m.subscribe(() => calls++);
  m.rememberQuery('q=train&minGpus=8');
  m.rememberQuery('q=train&minGpus=8');
  assert.equal(calls, 1, 'listeners hear changes only');
  assert.equal(m.href(), '/?q=train&minGpus=8');
  assert.equal(new ViewMemory(() => store).href(), '/?q=train&minGpus=8');
  m.rememberQuery('');
  assert.equal(m.href(), '/');
});

test('the focused row is given back once, and only to the view it was focused in', () => {
  const store = mapStore();
  const m = new ViewMemory(() => store);
  m.rememberFocus({ qs: 'q=a', id: 'sim/ns/JobSet.jobset.x-k8s.io/a', scrollTop: 440 });
  // After a reload of the workload page, the store still has it.
  const again = new ViewMemory(() => store);
  assert.deepEqual(again.takeFocus('q=a'), { qs: 'q=a', id: 'sim/ns/JobSet.jobset.x-k8s.io/a', scrollTop: 440 });
  assert.equal(again.takeFocus('q=a'), null);
  assert.equal(store.data.size, 0);
  m.rememberFocus({ qs: 'q=a', id: 'x', scrollTop: 0 });
  assert.equal(m.takeFocus('q=b'), null, 'another view');
  assert.equal(m.takeFocus('q=a'), null, 'consumed');
});

test('without storage (the server, refused storage) memory alone works', () => {
  const m = new ViewMemory(() => null);
  m.rememberQuery('status=Running');
  assert.equal(m.href(), '/?status=Running');
  const broken = new ViewMemory(() => ({ getItem: () => { throw new Error('denied'); }, setItem: () => { throw new Error('full'); }, removeItem: () => {} }));
  broken.rememberQuery('q=x');
  assert.equal(broken.href(), '/?q=x');
  broken.rememberFocus({ qs: '', id: 'r', scrollTop: 0 });
  assert.deepEqual(broken.takeFocus(''), { qs: '', id: 'r', scrollTop: 0 });
});
