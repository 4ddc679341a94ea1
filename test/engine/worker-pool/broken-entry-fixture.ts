// A worker entry that cannot load (as a bundle without its worker file would fail).
throw new Error('this worker entry cannot load');
