// Vite bundles the stylesheet imported by main.tsx.
declare module '*.css';
